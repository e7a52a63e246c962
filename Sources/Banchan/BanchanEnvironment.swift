package import Foundation
package import Platform
package import Vapor

/// What the shop's services and store use beside their database, made once by
/// `BanchanFeature.configure` and kept under one key (issue 59): the clock, the event bus, the
/// log, the shop's memories (its listings, the terms in force) and its budgets. The store takes
/// this and a database, never the application.
///
/// `now` is the shop's one source of time: an order's number, its 새벽배송 morning and its
/// `created_at` come from one reading of it, so they cannot fall on two days around midnight
/// (KST); a test moves it instead of waiting.
package struct BanchanEnvironment: FeatureEnvironment {
    package var now: @Sendable () -> Date
    package let events: any EventBus
    package let logger: Logger
    package let listings: BanchanListings
    package let terms: ShopTermsInForce
    package let limits: BanchanLimits
    /// Each owner's cart as last read, for the cart, checkout and the header's count (`KeptCarts`).
    package let keptCarts: KeptCarts
    /// Each account's saved addresses as last read (checkout, the address book), forgotten by
    /// every write of the book (`BanchanStore.addresses(of:)`).
    package let addressBooks: PersonMemory<[BanchanStore.SavedAddress]>
    /// Orders as their pages show them, at the version of the orders (`KeptOrders`).
    package let keptOrders: KeptOrders

    package init(now: @escaping Now, events: any EventBus, logger: Logger,
                 listings: BanchanListings, terms: ShopTermsInForce, limits: BanchanLimits, keptCarts: KeptCarts = KeptCarts(),
                 addressBooks: PersonMemory<[BanchanStore.SavedAddress]> = PersonMemory(topic: "banchan.addresses", lifetime: 3_600, capacity: 20_000),
                 keptOrders: KeptOrders = KeptOrders()) {
        self.now = now
        self.events = events
        self.logger = logger
        self.listings = listings
        self.terms = terms
        self.limits = limits
        self.keptCarts = keptCarts
        self.addressBooks = addressBooks
        self.keptOrders = keptOrders
    }
}

extension Application {
    private struct BanchanEnvironmentKey: StorageKey { typealias Value = BanchanEnvironment }

    package var banchanEnvironment: BanchanEnvironment {
        get { configured(BanchanEnvironmentKey.self) }
        set { storage[BanchanEnvironmentKey.self] = newValue }
    }

    /// The shop's listings (`banchanEnvironment.listings`).
    var banchanListings: BanchanListings { banchanEnvironment.listings }
    /// The delivery terms in force (`banchanEnvironment.terms`).
    package var shopTermsInForce: ShopTermsInForce { banchanEnvironment.terms }
    /// The shop's budgets (`banchanEnvironment.limits`).
    package var banchanLimits: BanchanLimits { banchanEnvironment.limits }
}
