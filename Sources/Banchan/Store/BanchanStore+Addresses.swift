import Accounts
package import Fluent
import Foundation
import Platform
import SQLKit

/// An account's saved delivery addresses (`banchan_addresses`), read and written only here. One
/// of them is the default checkout starts from; the first saved becomes it, and removing the
/// default makes the newest remaining one the default.
extension BanchanStore {
    typealias AddressColumn = SavedAddress.CodingKeys
    static let addresses = "banchan_addresses"
    /// How many addresses one account keeps.
    static let addressLimit = 10

    package struct SavedAddress: Codable, Sendable, Hashable {
        package let id: UUID
        let userID: UUID
        package let recipient: String
        package let phone: String
        package let postcode: String?
        package let address: String
        package let addressDetail: String
        package var isDefault: Bool
        package let createdAt: Date

        enum CodingKeys: String, TableColumn {
            case id, userID = "user_id", recipient, phone, postcode, address, addressDetail = "address_detail"
            case isDefault = "is_default", createdAt = "created_at"
        }

        package var delivery: Delivery.Address {
            Delivery.Address(recipient: recipient, phone: phone, postcode: postcode, address: address, addressDetail: addressDetail)
        }
    }

    /// The account's addresses, the default first, then newest first: kept per account
    /// (`BanchanEnvironment.addressBooks`) until a write of the book below forgets them, here and
    /// through the bus on every instance (checkout and the address book read them every view).
    func addresses(of user: UUID) async throws -> [SavedAddress] {
        try await environment.addressBooks.value(for: user) { try await storedAddresses(of: user) }
    }

    private func storedAddresses(of user: UUID) async throws -> [SavedAddress] {
        try await sql.select().columns(AddressColumn.allCases).from(Self.addresses)
            .where(SQLIdentifier(AddressColumn.userID), .equal, SQLBind(user))
            .orderBy(AddressColumn.isDefault, .descending).orderBy(AddressColumn.createdAt, .descending)
            .orderBy(AddressColumn.id, .descending)
            .all(decoding: SavedAddress.self)
    }

    func address(_ id: UUID, of user: UUID) async throws -> SavedAddress? {
        try await sql.select().columns(AddressColumn.allCases).from(Self.addresses)
            .where(SQLIdentifier(AddressColumn.id), .equal, SQLBind(id)).where(SQLIdentifier(AddressColumn.userID), .equal, SQLBind(user))
            .first(decoding: SavedAddress.self)
    }

    /// Saves a new address (the default when asked or when it is the account's first); 409
    /// `address_limit` when the account has ten already. The account's address book is written by
    /// one request at a time (`lockUntilCommit`), so neither the limit nor the one default breaks
    /// under parallel saves.
    func saveAddress(_ address: Delivery.Address, of user: UUID, makeDefault: Bool, now: Date) async throws -> SavedAddress {
        try await writingAddressBook(of: user) { transaction in
            let sql = transaction.sql
            try await sql.lockUntilCommit(Self.addressBookLock(user))
            let count = try await sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from(Self.addresses)
                .where(SQLIdentifier(AddressColumn.userID), .equal, SQLBind(user)).first(decodingColumn: "n", as: Int.self) ?? 0
            guard count < Self.addressLimit else { throw AppError.conflict("address_limit", ["limit": String(Self.addressLimit)]) }
            let isDefault = makeDefault || count == 0
            if isDefault { try await Self.clearDefault(of: user, on: sql) }
            let row = SavedAddress(id: UUID(), userID: user, recipient: address.recipient, phone: address.phone, postcode: address.postcode,
                                   address: address.address, addressDetail: address.addressDetail, isDefault: isDefault,
                                   createdAt: now.wholeMicroseconds)
            try await sql.insert(row, into: Self.addresses)
            return row
        }
    }

    /// Writes new fields over one of the account's addresses (and makes it the default when
    /// asked); nil when it is not theirs.
    func changeAddress(_ id: UUID, of user: UUID, to address: Delivery.Address, makeDefault: Bool) async throws -> SavedAddress? {
        try await writingAddressBook(of: user) { transaction in
            let sql = transaction.sql
            try await sql.lockUntilCommit(Self.addressBookLock(user))
            if makeDefault { try await Self.clearDefault(of: user, on: sql) }
            var update = sql.update(Self.addresses)
                .set(SQLIdentifier(AddressColumn.recipient), to: SQLBind(address.recipient)).set(SQLIdentifier(AddressColumn.phone), to: SQLBind(address.phone))
                .set(SQLIdentifier(AddressColumn.postcode), to: SQLBind(address.postcode)).set(SQLIdentifier(AddressColumn.address), to: SQLBind(address.address))
                .set(SQLIdentifier(AddressColumn.addressDetail), to: SQLBind(address.addressDetail))
            if makeDefault { update = update.set(SQLIdentifier(AddressColumn.isDefault), to: SQLBind(true)) }
            let changed = try await update.where(SQLIdentifier(AddressColumn.id), .equal, SQLBind(id))
                .where(SQLIdentifier(AddressColumn.userID), .equal, SQLBind(user)).returning(SQLIdentifier(AddressColumn.id)).all()
            guard !changed.isEmpty else {
                if makeDefault { throw AppError.notFound("address_not_found") }   // rolls the cleared default back
                return nil
            }
            return try await BanchanStore(database: transaction, environment: environment).address(id, of: user)
        }
    }

    /// Forgets one of the account's addresses; the newest remaining becomes the default when it was.
    /// False when it is not theirs.
    func removeAddress(_ id: UUID, of user: UUID) async throws -> Bool {
        try await writingAddressBook(of: user) { transaction in
            let sql = transaction.sql
            try await sql.lockUntilCommit(Self.addressBookLock(user))
            let removed = try await sql.delete(from: Self.addresses)
                .where(SQLIdentifier(AddressColumn.id), .equal, SQLBind(id)).where(SQLIdentifier(AddressColumn.userID), .equal, SQLBind(user))
                .returning(SQLIdentifier(AddressColumn.isDefault)).all()
            guard let row = removed.first else { return false }
            if try row.decode(column: AddressColumn.isDefault, as: Bool.self) {
                let newest = try await sql.select().column(SQLIdentifier(AddressColumn.id)).from(Self.addresses)
                    .where(SQLIdentifier(AddressColumn.userID), .equal, SQLBind(user))
                    .orderBy(AddressColumn.createdAt, .descending).orderBy(AddressColumn.id, .descending).limit(1)
                    .first(decodingColumn: AddressColumn.id, as: UUID.self)
                if let newest {
                    try await sql.update(Self.addresses).set(SQLIdentifier(AddressColumn.isDefault), to: SQLBind(true))
                        .where(SQLIdentifier(AddressColumn.id), .equal, SQLBind(newest)).run()
                }
            }
            return true
        }
    }

    /// A write of the account's book in a transaction of its own; the kept book is forgotten once
    /// it committed (and when it failed too: forgetting costs one read).
    private func writingAddressBook<T: Sendable>(of user: UUID, _ work: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        let books = environment.addressBooks, events = environment.events
        do {
            let written = try await database.writeTransaction(work)
            await books.forget(user, announcingOn: events)
            return written
        } catch {
            await books.forget(user, announcingOn: events)
            throw error
        }
    }

    private static func addressBookLock(_ user: UUID) -> String { "\(addresses)|\(user.uuidString)" }

    private static func clearDefault(of user: UUID, on sql: any SQLDatabase) async throws {
        try await sql.update(addresses).set(SQLIdentifier(AddressColumn.isDefault), to: SQLBind(false))
            .where(SQLIdentifier(AddressColumn.userID), .equal, SQLBind(user)).where(SQLIdentifier(AddressColumn.isDefault), .equal, SQLBind(true)).run()
    }
}

/// At most one default address per account, kept by the database itself (a partial unique index),
/// after keeping only the newest of the defaults parallel saves had left.
struct OneDefaultAddress: NamedMigration {
    typealias AddressColumn = BanchanStore.AddressColumn
    static let index = "banchan_addresses_one_default"

    func prepare(on database: any Database) async throws {
        let sql = database.sql
        let table = SQLIdentifier(BanchanStore.addresses)
        try await sql.raw("""
            UPDATE \(table) SET \(ident: AddressColumn.isDefault) = \(bind: false)
            WHERE \(ident: AddressColumn.isDefault) = \(bind: true) AND \(ident: AddressColumn.id) NOT IN (
                SELECT \(ident: AddressColumn.id) FROM (
                    SELECT \(ident: AddressColumn.id), ROW_NUMBER() OVER (
                        PARTITION BY \(ident: AddressColumn.userID)
                        ORDER BY \(ident: AddressColumn.createdAt) DESC, \(ident: AddressColumn.id) DESC) AS newest
                    FROM \(table) WHERE \(ident: AddressColumn.isDefault) = \(bind: true)) AS defaults
                WHERE newest = 1)
            """).run()
        try await sql.raw("""
            CREATE UNIQUE INDEX \(ident: Self.index) ON \(table) (\(ident: AddressColumn.userID)) WHERE \(ident: AddressColumn.isDefault)
            """).run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("DROP INDEX \(ident: Self.index)").run()
    }
}

/// Where orders go: the delivery an order was placed with (address, recipient, slot, note, when a
/// 새벽배송 arrives, how the buyer meant to pay), the price before a dish's sale on each line (for
/// the receipt's discount), and the accounts' saved addresses.
struct AddOrderDelivery: NamedMigration {
    typealias Column = BanchanStore.OrderColumn
    typealias AddressColumn = BanchanStore.AddressColumn

    static let orderColumns: [(Column, DatabaseSchema.DataType)] = [
        (.deliverySlot, .string), (.recipient, .string), (.phone, .string), (.postcode, .string), (.address, .string),
        (.addressDetail, .string), (.deliveryNote, .string), (.arrivesOn, .string), (.paymentMethod, .string),
    ]

    func prepare(on database: any Database) async throws {
        // One column a statement: SQLite adds one at a time.
        for column in Self.orderColumns {
            try await database.schema(BanchanOrder.schema).fields([column], optional: true).update()
        }
        try await database.schema(BanchanOrderItem.schema).fields([(BanchanStore.ItemColumn.originalPrice, .int)], optional: true).update()
        try await database.schema(BanchanStore.addresses)
            .id()
            .field(AddressColumn.userID.fieldKey, .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .fields([(AddressColumn.recipient, .string), (.phone, .string), (.address, .string), (.addressDetail, .string),
                     (.isDefault, .bool), (.createdAt, .datetime)])
            .fields([(AddressColumn.postcode, .string)], optional: true)
            .create()
        try await database.sql.create(index: "banchan_addresses_user").on(BanchanStore.addresses).column(AddressColumn.userID.rawValue).run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(BanchanStore.addresses).delete()
        // Written out: Fluent's SQLite driver leaves a dropped field where it is.
        try await database.sql.raw("ALTER TABLE \(ident: BanchanOrderItem.schema) DROP COLUMN \(ident: BanchanStore.ItemColumn.originalPrice.rawValue)").run()
        for (column, _) in Self.orderColumns {
            try await database.sql.raw("ALTER TABLE \(ident: BanchanOrder.schema) DROP COLUMN \(ident: column.rawValue)").run()
        }
    }
}
