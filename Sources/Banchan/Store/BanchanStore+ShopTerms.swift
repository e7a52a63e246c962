package import Fluent
import Foundation
import NIOConcurrencyHelpers
import Platform
import SQLKit
import Vapor

/// The shop's terms as the operator saved them (`banchan_shop_terms`, one row), read and written
/// only here. No row: the environment's values hold (`DELIVERY_FEE`, `FREE_DELIVERY_FROM`,
/// `DAWN_DELIVERY_CUTOFF`). Every save is announced, so every instance's `ShopTermsInForce` follows.
extension BanchanStore {
    static let shopTerms = "banchan_shop_terms"
    /// The one row's key.
    static let shopTermsKey = "shop"

    package struct SavedTerms: Codable, Sendable, Equatable {
        let key: String
        let deliveryFee: Int
        let freeDeliveryFrom: Int
        let dawnCutoffMinutes: Int
        package let updatedAt: Date
        /// The operator who saved them (nil once that account is gone).
        package let updatedBy: UUID?

        enum CodingKeys: String, TableColumn {
            case key, deliveryFee = "delivery_fee", freeDeliveryFrom = "free_delivery_from", dawnCutoffMinutes = "dawn_cutoff_minutes"
            case updatedAt = "updated_at", updatedBy = "updated_by"
        }

        package var terms: ShopTerms {
            ShopTerms(delivery: DeliveryFeeRule(fee: deliveryFee, freeFrom: freeDeliveryFrom), dawn: DawnSchedule(cutoffMinutes: dawnCutoffMinutes))
        }
    }

    func savedTerms() async throws -> SavedTerms? {
        try await sql.select().columns(SavedTerms.CodingKeys.allCases).from(Self.shopTerms)
            .where(SQLIdentifier(SavedTerms.CodingKeys.key), .equal, SQLBind(Self.shopTermsKey))
            .first(decoding: SavedTerms.self)
    }

    /// Writes the terms over the saved ones; run in the caller's transaction with its audit entry.
    /// The caller announces them after the commit (`ShopTermsInForce.announceChange`).
    @discardableResult
    func saveTerms(_ terms: ShopTerms, by operator: UUID?, at now: Date) async throws -> SavedTerms {
        let row = SavedTerms(key: Self.shopTermsKey, deliveryFee: terms.delivery.fee, freeDeliveryFrom: terms.delivery.freeFrom,
                             dawnCutoffMinutes: terms.dawn.cutoffMinutes, updatedAt: now.wholeMicroseconds, updatedBy: `operator`)
        try await sql.delete(from: Self.shopTerms).where(SQLIdentifier(SavedTerms.CodingKeys.key), .equal, SQLBind(Self.shopTermsKey)).run()
        try await sql.insert(row, into: Self.shopTerms)
        return row
    }
}

/// The terms every order and page of this instance uses now: the environment's until an operator
/// saves some, then the saved ones, read again whenever any instance announces a save.
package final class ShopTermsInForce: Sendable {
    package struct State: Sendable, Equatable {
        package var terms: ShopTerms
        /// When and by whom they were saved; nil while the environment's hold.
        package var saved: BanchanStore.SavedTerms?
        /// Moves on every change, so pages made with the fee know to make themselves again.
        package var revision = 0
    }

    /// `{"changed": true}`: read the terms again.
    static let topic = "banchan:terms"

    private let state: NIOLockedValueBox<State>

    init(environment terms: ShopTerms) {
        state = NIOLockedValueBox(State(terms: terms))
    }

    package var current: State { state.withLockedValue { $0 } }
    package var terms: ShopTerms { state.withLockedValue { $0.terms } }

    /// Takes the saved terms, if there are any (at start, after the seed, and on every announcement).
    func load(from store: BanchanStore) async throws {
        guard let saved = try await store.savedTerms() else { return }
        state.withLockedValue { state in
            // Two reads can finish out of order (a save announced while another read was on its
            // way): the newer save holds.
            guard state.saved != saved, (state.saved?.updatedAt ?? .distantPast) <= saved.updatedAt else { return }
            state.terms = saved.terms
            state.saved = saved
            state.revision += 1
        }
    }

    static func follow(_ app: Application) {
        app.follow(topic) { app, _ in
            do {
                try await app.shopTermsInForce.load(from: app.banchanStore)
            } catch {
                app.logger.warning("reading the shop's terms again failed: \(error)")
            }
        }
    }

    /// Tells every process (this one too) to read the terms again.
    static func announceChange(on events: any EventBus) async {
        await events.publish(#"{"changed":true}"#, to: topic)
    }
}

/// The operator's saved terms: one row, keyed so a second can never appear.
struct CreateShopTerms: NamedMigration {
    typealias Column = BanchanStore.SavedTerms.CodingKeys

    func prepare(on database: any Database) async throws {
        try await database.schema(BanchanStore.shopTerms)
            .field(Column.key.fieldKey, .string, .identifier(auto: false))
            .fields([(Column.deliveryFee, .int), (.freeDeliveryFrom, .int), (.dawnCutoffMinutes, .int), (.updatedAt, .datetime)])
            .fields([(Column.updatedBy, .uuid)], optional: true)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(BanchanStore.shopTerms).delete()
    }
}
