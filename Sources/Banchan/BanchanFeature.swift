package import Fluent
import Payments
package import Platform
package import Vapor

/// The side-dish shop (배민찬): catalog, cart, orders and payments, the shipped app's routes, its pages.
package enum BanchanFeature: Feature {
    package static let settingsSections: [any SettingsSection.Type] = [ShopSettings.self]
    package static let migrations: [any Migration] = [CreateBanchan(), AddOrderProgress(), AddOrderDelivery(), CreateShopTerms(), OneDefaultAddress(), AddOrderShipment()]
    package static let seeders: [any Seeder] = [BanchanSeeder()]
    package static let homeCard: HomeCard? = HomeCard(position: 4, emoji: "🥢", key: "banchan", path: ShopPath.home())

    package static func configure(_ app: Application, settings: Settings) async throws {
        app.usePaymentGateway(settings.shop.gateway)
        AppMetrics.countersStartAtZero(["whatweeat_banchan_orders_placed_total", "whatweeat_banchan_payments_confirmed_total",
                                        "whatweeat_banchan_payments_duplicate_total"])
        // The shop's one environment: clock, bus, log, memories and budgets (`BanchanEnvironment`).
        // The settings' terms stand until the seed reads the operator's saved ones.
        app.banchanEnvironment = BanchanEnvironment(
            now: app.siteClock, events: app.events, logger: app.logger,
            listings: BanchanListings(images: BanchanImages.URLs(publicURL: settings.publicURL)),
            terms: ShopTermsInForce(environment: settings.shop.terms),
            limits: BanchanLimits(shared: app.sharedBudgets))
        BanchanListings.follow(app)
        ShopTermsInForce.follow(app)
        // A visitor's cart joins the account's when they sign in on that device.
        app.deviceHandOvers.register { device, account, req in
            try await BanchanService(request: req).mergeCart(of: device, into: account)
        }
        app.adminToday.register(BanchanAdminToday.figures)
        // Orders whose payment window ran out give their stock back; the conditional update lets
        // only one instance win per order.
        let window = settings.shop.paymentWindow
        app.lifecycle.use(PeriodicJob("cancelled unpaid orders past their payment window", every: .seconds(60)) { app in
            try await BanchanService(application: app).expireUnpaidOrders(window: window)
        })
        // Five years on, an order forgets who received it and where (`forgetOldDeliveryDetails`).
        app.lifecycle.use(PeriodicJob("forgot the delivery details of orders over five years old", every: .seconds(6 * 3600)) { app in
            try await BanchanService(application: app).forgetOldDeliveryDetails()
        })
    }

    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.api.register(collection: BanchanAPI())
        try routes.api.register(collection: BanchanAdminAPI())
        try routes.api.register(collection: BanchanAddressesAPI())
        try routes.open.register(collection: BanchanImages())
        try routes.web.register(collection: BanchanPages())
        try routes.web.register(collection: BanchanAdminPages())
        try routes.web.register(collection: BanchanAdminCatalogPages())
    }
}

extension Application {
    /// The delivery fee in force: the operator's, else the environment's.
    package var deliveryFeeRule: DeliveryFeeRule { shopTermsInForce.terms.delivery }
}
