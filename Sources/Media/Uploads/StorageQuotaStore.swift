package import Fluent
import Foundation
import Platform
import SQLKit

/// The one owner of the upload counters — `storage_usage` (the bytes each account stores) and
/// `storage_network_days` (the bytes young accounts stored from one network in one UTC day): the
/// only code that reads or writes them, naming each column once. The rules (which limit, when a
/// young account shares its network's day) are `StorageQuota`'s. Nothing is kept in memory about
/// these counters, so a write has nothing to announce.
package struct StorageQuotaStore {
    let database: any Database

    package init(database: any Database) { self.database = database }

    static let usage = "storage_usage"
    static let networkDays = "storage_network_days"

    enum UsageColumn: String, TableColumn {
        case accountID = "account_id", bytes
    }

    enum NetworkDayColumn: String, TableColumn {
        case network, day, bytes
    }

    private var sql: any SQLDatabase { database.sql }

    // MARK: Accounts

    /// Adds `bytes` to the account's count unless that passes `limit`: one conditional update, so
    /// parallel uploads cannot all pass a sum read before any of them was written. False (nothing
    /// added) when it would pass.
    func take(_ bytes: Int, account: UUID, limit: Int) async throws -> Bool {
        try await sql.raw("""
            INSERT INTO \(ident: Self.usage) (\(ident: UsageColumn.accountID), \(ident: UsageColumn.bytes)) VALUES (\(bind: account), 0)
            ON CONFLICT (\(ident: UsageColumn.accountID)) DO NOTHING
            """).run()
        return try await !sql.raw("""
            UPDATE \(ident: Self.usage) SET \(ident: UsageColumn.bytes) = \(ident: UsageColumn.bytes) + \(bind: bytes)
            WHERE \(ident: UsageColumn.accountID) = \(bind: account) AND \(ident: UsageColumn.bytes) + \(bind: bytes) <= \(bind: limit)
            RETURNING \(ident: UsageColumn.bytes)
            """).all().isEmpty
    }

    /// Takes `bytes` off the account's count (never below zero).
    func giveBack(_ bytes: Int, account: UUID) async throws {
        try await sql.raw("""
            UPDATE \(ident: Self.usage) SET \(ident: UsageColumn.bytes) = \(Self.lessened(UsageColumn.bytes, by: bytes))
            WHERE \(ident: UsageColumn.accountID) = \(bind: account)
            """).run()
    }

    /// The bytes the account stores now.
    func used(by account: UUID) async throws -> Int {
        try await sql.select().column(SQLIdentifier(UsageColumn.bytes)).from(Self.usage)
            .where(SQLIdentifier(UsageColumn.accountID), .equal, SQLBind(account))
            .first(decodingColumn: UsageColumn.bytes, as: Int.self) ?? 0
    }

    /// Forgets the account's count.
    func forget(_ account: UUID) async throws {
        try await sql.delete(from: Self.usage).where(SQLIdentifier(UsageColumn.accountID), .equal, SQLBind(account)).run()
    }

    // MARK: Networks' days

    /// Adds `bytes` to the network's day unless that passes `limit`; false (nothing added) when it would.
    func takeNetworkDay(_ bytes: Int, network: String, day: String, limit: Int) async throws -> Bool {
        try await sql.raw("""
            INSERT INTO \(ident: Self.networkDays) (\(ident: NetworkDayColumn.network), \(ident: NetworkDayColumn.day), \(ident: NetworkDayColumn.bytes))
            VALUES (\(bind: network), \(bind: day), 0)
            ON CONFLICT (\(ident: NetworkDayColumn.network), \(ident: NetworkDayColumn.day)) DO NOTHING
            """).run()
        return try await !sql.raw("""
            UPDATE \(ident: Self.networkDays) SET \(ident: NetworkDayColumn.bytes) = \(ident: NetworkDayColumn.bytes) + \(bind: bytes)
            WHERE \(ident: NetworkDayColumn.network) = \(bind: network) AND \(ident: NetworkDayColumn.day) = \(bind: day)
              AND \(ident: NetworkDayColumn.bytes) + \(bind: bytes) <= \(bind: limit)
            RETURNING \(ident: NetworkDayColumn.bytes)
            """).all().isEmpty
    }

    /// Takes `bytes` off the network's day (never below zero).
    func giveBackNetworkDay(_ bytes: Int, network: String, day: String) async throws {
        try await sql.raw("""
            UPDATE \(ident: Self.networkDays) SET \(ident: NetworkDayColumn.bytes) = \(Self.lessened(NetworkDayColumn.bytes, by: bytes))
            WHERE \(ident: NetworkDayColumn.network) = \(bind: network) AND \(ident: NetworkDayColumn.day) = \(bind: day)
            """).run()
    }

    /// The bytes counted for the network's day (0 when none).
    package func usedOnDay(network: String, day: String) async throws -> Int {
        try await sql.select().column(SQLIdentifier(NetworkDayColumn.bytes)).from(Self.networkDays)
            .where(SQLIdentifier(NetworkDayColumn.network), .equal, SQLBind(network))
            .where(SQLIdentifier(NetworkDayColumn.day), .equal, SQLBind(day))
            .first(decodingColumn: NetworkDayColumn.bytes, as: Int.self) ?? 0
    }

    /// Forgets the days before `day`; returns how many rows went.
    func pruneNetworkDays(before day: String) async throws -> Int {
        try await sql.delete(from: Self.networkDays).where(SQLIdentifier(NetworkDayColumn.day), .lessThan, SQLBind(day))
            .returning(SQLIdentifier(NetworkDayColumn.network)).all().count
    }

    /// `column - bytes`, or 0 where that would go below zero.
    private static func lessened(_ column: some TableColumn, by bytes: Int) -> SQLQueryString {
        "CASE WHEN \(ident: column) > \(bind: bytes) THEN \(ident: column) - \(bind: bytes) ELSE 0 END"
    }
}
