package import Accounts
package import Fluent
import Foundation
import Platform
import SQLKit

/// The one owner of `burger_donations`, the LookForRealBurger app's "후원하기": the only code that
/// reads or writes it, naming its columns once (`Column`; the model's keys too). Nothing is kept in
/// memory about donations, so a write has nothing to announce.
struct BurgerDonationStore {
    let database: any Database

    enum Column: String, TableColumn {
        case id, userID = "user_id"
        /// The payment provider's id: unique, so one payment counts once.
        case paymentID = "payment_id"
        case merchantUID = "merchant_uid", amount
        /// `portone` or `test`.
        case gateway
        case createdAt = "created_at"
    }

    private static var table: SQLIdentifier { SQLIdentifier(BurgerDonation.schema) }

    /// The donation recorded for a payment, whoever made it.
    func donation(paymentID: String) async throws -> DonationRow? {
        try await database.sql.select()
            .columns([Column.userID, Column.paymentID, Column.merchantUID, Column.amount, Column.createdAt].map { SQLIdentifier($0) })
            .from(Self.table).where(SQLIdentifier(Column.paymentID), .equal, SQLBind(paymentID)).first()
            .map { row in
                DonationRow(userID: try row.decode(column: Column.userID, as: UUID?.self), paymentID: try row.decode(column: Column.paymentID, as: String.self),
                            merchantUID: try row.decode(column: Column.merchantUID, as: String.self), amount: try row.decode(column: Column.amount, as: Int.self),
                            createdAt: try row.decode(column: Column.createdAt, as: Date?.self) ?? Date(timeIntervalSince1970: 0))
            }
    }

    /// Records a confirmed payment; the same payment recorded twice is a constraint failure, the
    /// caller's to read.
    func record(userID: UUID, paymentID: String, merchantUID: String, amount: Int, gateway: String, now: Date) async throws -> DonationRow {
        let row = DonationInsert(id: UUID(), userID: userID, paymentID: paymentID, merchantUID: merchantUID, amount: amount, gateway: gateway,
                                 createdAt: now.wholeMicroseconds)
        try await database.sql.insert(row, into: BurgerDonation.schema)
        return DonationRow(userID: userID, paymentID: paymentID, merchantUID: merchantUID, amount: amount, createdAt: row.createdAt)
    }

    /// A new row of `burger_donations`, every column by `Column`.
    private struct DonationInsert: Encodable {
        let id: UUID
        let userID: UUID
        let paymentID: String
        let merchantUID: String
        let amount: Int
        let gateway: String
        let createdAt: Date
        typealias CodingKeys = Column
    }

    /// The people who donated, first donation first, each once (an account deleted since is left out).
    func donors() async throws -> [UUID] {
        let ids = try await database.sql.select().column(Column.userID).from(Self.table)
            .where(SQLIdentifier(Column.userID), .isNot, SQLLiteral.null)
            .orderBy(Column.createdAt).orderBy(Column.id).all(decodingColumn: Column.userID, as: UUID.self)
        var seen: Set<UUID> = []
        return ids.filter { seen.insert($0).inserted }
    }
}

/// A recorded donation.
struct DonationRow: Sendable {
    let userID: UUID?
    let paymentID: String
    let merchantUID: String
    let amount: Int
    let createdAt: Date
}

/// A donation made from the LookForRealBurger app's "후원하기", once the payment provider confirmed
/// it. Inserted by `BurgerDonationStore` only.
package final class BurgerDonation: Model, @unchecked Sendable {
    package static let schema = "burger_donations"

    @ID(key: .id) package var id: UUID?
    @OptionalParent(key: BurgerDonationStore.Column.userID.fieldKey) package var user: User?
    @Field(key: BurgerDonationStore.Column.paymentID.fieldKey) package var paymentID: String
    @Field(key: BurgerDonationStore.Column.merchantUID.fieldKey) package var merchantUID: String
    @Field(key: BurgerDonationStore.Column.amount.fieldKey) package var amount: Int
    @Field(key: BurgerDonationStore.Column.gateway.fieldKey) package var gateway: String
    @Timestamp(key: BurgerDonationStore.Column.createdAt.fieldKey, on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}
}
