package import Foundation
package import Payments
package import Platform

/// The shop's settings: which payment provider confirms payments, the delivery fee rule, and how
/// long an order waits for its payment. `settings.shop`. The fee and the 새벽배송 cut-off are where
/// the shop starts: an operator's terms saved from the console replace them (`ShopTermsInForce`).
package struct ShopSettings: SettingsSection, Equatable {
    package typealias Gateway = PaymentGatewaySetting

    package var gateway: Gateway = .test
    /// Whether `PAYMENT_GATEWAY` was set: a production shop must say how it is paid, or `none`.
    package var gatewayChosen = false
    package var deliveryFee: Int = 2_500
    var freeDeliveryFrom: Int = 40_000
    /// How long an order waits for its payment before it is cancelled and its stock returned.
    package var paymentWindow: TimeInterval = 30 * 60
    /// Orders placed before this time of day (Korea) arrive by 새벽배송 the next morning.
    package var dawnSchedule = DawnSchedule(cutoffMinutes: 22 * 60)

    package init() {}

    /// The terms the shop starts with, until an operator saves others from the console.
    var terms: ShopTerms {
        ShopTerms(delivery: DeliveryFeeRule(fee: deliveryFee, freeFrom: freeDeliveryFrom), dawn: dawnSchedule)
    }

    package init(gateway: Gateway = .test, deliveryFee: Int = 2_500, freeDeliveryFrom: Int = 40_000,
                 paymentWindow: TimeInterval = 30 * 60) {
        self.gateway = gateway
        self.deliveryFee = deliveryFee
        self.freeDeliveryFrom = freeDeliveryFrom
        self.paymentWindow = paymentWindow
    }

    /// `DELIVERY_FEE`, `FREE_DELIVERY_FROM`, `PAYMENT_WINDOW`, `DAWN_DELIVERY_CUTOFF`, `PAYMENT_GATEWAY` and PortOne's keys.
    package static func load(from environment: EnvironmentVariables) throws -> ShopSettings {
        func value(_ name: String) -> String? { environment.value(name) }
        func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
            try environment.integer(name, default: fallback, in: range)
        }
        let appEnvironment = environment.appEnvironment
        var shop = ShopSettings()
        shop.deliveryFee = try integer("DELIVERY_FEE", default: 2_500, in: ShopTerms.feeRange)
        shop.freeDeliveryFrom = try integer("FREE_DELIVERY_FROM", default: 40_000, in: ShopTerms.freeFromRange)
        shop.paymentWindow = TimeInterval(try integer("PAYMENT_WINDOW", default: 30 * 60, in: 60...(7 * 24 * 3600)))
        if let cutoff = value("DAWN_DELIVERY_CUTOFF") {
            guard let schedule = DawnSchedule.parse(cutoff) else {
                throw SettingsError(variable: "DAWN_DELIVERY_CUTOFF", value: cutoff, expected: "a time of day in Korea as HH:mm, like 22:00")
            }
            shop.dawnSchedule = schedule
        }
        shop.gatewayChosen = value("PAYMENT_GATEWAY") != nil
        switch value("PAYMENT_GATEWAY")?.lowercased() {
        case nil:
            shop.gateway = appEnvironment == .production ? .none : .test
        case "none":
            shop.gateway = .none
        case "test":
            guard appEnvironment != .production else {
                throw SettingsError(variable: "PAYMENT_GATEWAY", value: "test", expected: "portone when APP_ENV=production (the test gateway approves anything marked as test)")
            }
            shop.gateway = .test
        case "portone":
            guard let key = value("PORTONE_API_KEY"), let secret = value("PORTONE_API_SECRET") else {
                throw SettingsError(variable: "PAYMENT_GATEWAY", value: "portone", expected: "PORTONE_API_KEY and PORTONE_API_SECRET to be set")
            }
            let url = value("PORTONE_API_URL") ?? "https://api.iamport.kr"
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host?.isEmpty == false else {
                throw SettingsError(variable: "PORTONE_API_URL", value: url, expected: "an http:// or https:// URL")
            }
            shop.gateway = .portOne(url: url.hasSuffix("/") ? String(url.dropLast()) : url, apiKey: key, apiSecret: secret)
        case let other?:
            throw SettingsError(variable: "PAYMENT_GATEWAY", value: other, expected: "test, portone or none")
        }

        return shop
    }

    /// A production shop says how it is paid (or that it takes no orders), over TLS.
    package func productionProblem(in settings: Settings) -> SettingsError? {
        guard gatewayChosen else {
            return SettingsError(variable: "PAYMENT_GATEWAY", value: "(unset)",
                                 expected: "portone (with PORTONE_API_KEY and PORTONE_API_SECRET) when APP_ENV=production, or none for a shop that shows its dishes and takes no orders")
        }
        if case .portOne(let url, _, _) = gateway { return Settings.cleartextProblem("PORTONE_API_URL", url: url) }
        return nil
    }
}

extension Settings {
    package var shop: ShopSettings {
        get { self[section: ShopSettings.self] }
        set { self[section: ShopSettings.self] = newValue }
    }
}
