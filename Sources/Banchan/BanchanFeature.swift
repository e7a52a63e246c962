package import Fluent
import Payments
package import Platform
package import Vapor

/// The side-dish shop (배민찬): catalog, cart, orders and payments, the shipped app's routes, its pages.
package enum BanchanFeature: Feature {
    package static let settingsSections: [any SettingsSection.Type] = [ShopSettings.self, PostcodeSettings.self]
    package static let migrations: [any Migration] = [CreateBanchan(), AddOrderProgress(), AddOrderDelivery(), CreateShopTerms(), OneDefaultAddress(), AddOrderShipment(), AddDishPhoto(), AddLineRefunds()]
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
        KeptCarts.follow(app)
        app.banchanEnvironment.addressBooks.follow(app)
        KeptOrders.follow(app)
        // A visitor's cart joins the account's when they sign in on that device.
        app.deviceHandOvers.register { device, account, req in
            try await BanchanService(request: req).mergeCart(of: device, into: account)
        }
        app.adminToday.register(version: BanchanAdminToday.version, BanchanAdminToday.figures)
        app.adminPerson.register(BanchanAdminPages.personsOrders)
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

    /// The 새벽배송 cut-off in force as people say it (`밤 10시`, `10 pm`, `夜10時`): the one
    /// phrase the dish pages, checkout, the console and the 배민찬 app all show.
    package func dawnCutoffPhrase(_ language: Language) -> String {
        SpokenTime.phrase(minutes: shopTermsInForce.terms.dawn.cutoffMinutes, language)
    }

    /// How a dish reaches the door, in `language`: each way it travels with the shop's terms in
    /// force (the one cut-off), then the dish's own note (how it is packed, where it goes).
    package func deliveryInfo(of dish: Dish, _ language: Language) -> String {
        let ways = dish.deliveryTypes.map { type in
            type == .dawn ? translator.text("banchan.delivery_way.dawn", language, ["cutoff": dawnCutoffPhrase(language)])
                : translator.text("banchan.delivery_way.parcel", language, [:])
        }
        let note = dish.deliveryInfo.trimmingCharacters(in: .whitespacesAndNewlines)
        return (ways + (note.isEmpty ? [] : [note])).joined(separator: " / ")
    }
}

/// A time of day as people say it in each language: 밤 10시 / 저녁 8시 30분, 10 pm / 8:30 pm, 夜10時 / 午後8時30分.
package enum SpokenTime {
    package static func phrase(minutes: Int, _ language: Language) -> String {
        let hour = (minutes / 60) % 24, minute = minutes % 60
        let twelve = hour % 12 == 0 ? 12 : hour % 12
        switch language {
        case .en:
            let suffix = hour < 12 ? "am" : "pm"
            return minute == 0 ? "\(twelve) \(suffix)" : String(format: "%d:%02d %@", twelve, minute, suffix)
        case .ja:
            let period = hour < 6 ? "深夜" : hour < 12 ? "午前" : hour < 18 ? "午後" : "夜"
            return "\(period)\(twelve)時" + (minute == 0 ? "" : "\(minute)分")
        case .ko:
            let period = hour < 6 ? "새벽" : hour < 12 ? "오전" : hour < 18 ? "오후" : hour < 21 ? "저녁" : "밤"
            return "\(period) \(twelve)시" + (minute == 0 ? "" : " \(minute)분")
        }
    }
}
