package import Fluent
import NIOConcurrencyHelpers
import Notifications
package import Payments
package import Platform
import SQLKit
package import Vapor

/// A cart line as clients see it: the dish, its stock when the cart was read, and how many.
package struct ShopLine: Sendable, Hashable {
    let dishID: UUID
    package let dish: Dish
    package let stock: Int
    package let quantity: Int
}

/// Every rule of the shop: catalog reads, the cart, orders that never oversell, payments checked
/// with the provider. Handlers (API, compatibility routes, pages) stay thin over this.
package struct BanchanService {
    package let database: any Database
    package let delivery: DeliveryFeeRule
    /// When a 새벽배송 placed now arrives.
    package let dawnSchedule: DawnSchedule
    package let gateway: (any PaymentGateway)?
    let listings: BanchanListings
    package let events: any EventBus
    package let logger: Logger
    /// The shop's tables: dishes, carts, orders and their stock.
    let store: BanchanStore
    /// Where buyers hear of their orders' changes.
    let inbox: NotificationStore
    /// The shop's clock, bus, log, memories and budgets.
    let environment: BanchanEnvironment

    package init(request: Request) {
        self.init(database: request.db, application: request.application, logger: request.logger)
    }

    /// For work outside a request (the unpaid-order sweeper).
    package init(application: Application) {
        self.init(database: application.db, application: application, logger: application.logger)
    }

    private init(database: any Database, application: Application, logger: Logger) {
        self.database = database
        let environment = application.banchanEnvironment
        self.environment = environment
        let terms = environment.terms.terms
        delivery = terms.delivery
        dawnSchedule = terms.dawn
        gateway = application.paymentGateway
        listings = environment.listings
        events = environment.events
        self.logger = logger
        store = BanchanStore(database: database, environment: environment)
        inbox = NotificationStore(database: database, application: application)
    }

    // MARK: Catalog

    /// A dish on sale (404 `dish_not_found` for an unknown or retired one).
    package func dish(hash: String) async throws -> BanchanStore.DishRow {
        guard let row = try await store.dishRowOnSale(hash: hash) else { throw AppError.notFound("dish_not_found") }
        return row
    }

    /// Every dish of a section in catalog order (the shipped app's section lists are not paged),
    /// from the in-memory listings.
    package func dishes(in section: DishSection) -> [BanchanListings.Listing] {
        listings.all(in: section)
    }

    package func dishes(in section: DishSection, page: CursorPageRequest) throws -> (items: [BanchanListings.Listing], nextCursor: String?) {
        try listings.page(in: section, page)
    }

    func dishCounts() -> [DishSection: Int] {
        Dictionary(uniqueKeysWithValues: DishSection.allCases.map { ($0, listings.count(in: $0)) })
    }
}

extension Request {
    package var banchan: BanchanService { BanchanService(request: self) }
}
