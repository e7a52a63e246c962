import Fluent
import SQLKit
import Vapor

/// Every stored byte belongs to an account's quota: an account's uploaded files (review photos,
/// a profile picture) may take `bytesPerAccount` in all, counted in `storage_usage` (one row per
/// account). A writer reserves the bytes before it stores them and gives them back when a file
/// is not kept or is deleted; the reservation is one conditional update of the account's row, so
/// parallel uploads cannot all pass a sum taken before any of them was written. Uploads are also
/// refused while the disk holding the files has less than `minimumFreeBytes` free, so a full disk
/// never stops the database from writing.
package struct StorageQuota: Sendable {
    package static let schema = "storage_usage"

    package let bytesPerAccount: Int
    package let minimumFreeBytes: Int
    /// Where the files are, for the free-space check (nil: not on a local disk).
    package let directory: String?

    package init(settings: Settings, directory: String?) {
        bytesPerAccount = settings.limits.uploadQuotaMB * 1_048_576
        minimumFreeBytes = settings.limits.minimumFreeDiskMB * 1_048_576
        self.directory = directory
    }

    /// Takes `bytes` of `account`'s quota, or throws 413 `storage_quota_exceeded` (nothing taken)
    /// or 503 `storage_full` when the disk is nearly full.
    package func reserve(_ bytes: Int, for account: UUID, on database: any Database) async throws {
        if let directory, let free = try? FileManager.default.attributesOfFileSystem(forPath: directory)[.systemFreeSize] as? NSNumber,
           free.int64Value - Int64(bytes) < Int64(minimumFreeBytes) {
            database.logger.error("uploads refused: \(free.int64Value / 1_048_576) MB free on the uploads disk")
            throw AppError(.serviceUnavailable, "storage_full", headers: ["Retry-After": "3600"])
        }
        let sql = database.sql
        try await sql.raw("""
            INSERT INTO \(ident: Self.schema) (account_id, bytes) VALUES (\(bind: account), 0) ON CONFLICT (account_id) DO NOTHING
            """).run()
        let taken = try await sql.raw("""
            UPDATE \(ident: Self.schema) SET bytes = bytes + \(bind: bytes)
            WHERE account_id = \(bind: account) AND bytes + \(bind: bytes) <= \(bind: bytesPerAccount) RETURNING bytes
            """).all()
        guard !taken.isEmpty else {
            throw AppError(.payloadTooLarge, "storage_quota_exceeded", arguments: ["max": "\(bytesPerAccount / 1_048_576) MB"])
        }
    }

    /// Gives `bytes` back (a file not kept, or deleted). A failure is logged: it only leaves the
    /// account with less room than it has.
    package func release(_ bytes: Int, for account: UUID, on database: any Database) async {
        guard bytes > 0 else { return }
        do {
            try await database.sql.raw("""
                UPDATE \(ident: Self.schema) SET bytes = CASE WHEN bytes > \(bind: bytes) THEN bytes - \(bind: bytes) ELSE 0 END
                WHERE account_id = \(bind: account)
                """).run()
        } catch {
            database.logger.warning("storage quota not given back: \(error)")
        }
    }

    /// Forgets a removed account's count (its files went with it).
    package func forget(_ account: UUID, on database: any Database) async throws {
        try await database.sql.raw("DELETE FROM \(ident: Self.schema) WHERE account_id = \(bind: account)").run()
    }

    /// The bytes `account` stores now.
    package func used(by account: UUID, on database: any Database) async throws -> Int {
        try await database.sql.raw("SELECT bytes FROM \(ident: Self.schema) WHERE account_id = \(bind: account)").first()?
            .decode(column: "bytes", as: Int.self) ?? 0
    }
}

package struct CreateStorageUsage: NamedMigration {
    package func prepare(on database: any Database) async throws {
        try await database.schema(StorageQuota.schema)
            .field("account_id", .uuid, .required)
            .field("bytes", .int64, .required)
            .unique(on: "account_id")
            .create()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(StorageQuota.schema).delete()
    }

    package init() {}
}

extension Application {
    private struct StorageQuotaKey: StorageKey { typealias Value = StorageQuota }

    package var storageQuota: StorageQuota {
        get { configured(StorageQuotaKey.self) }
        set { storage[StorageQuotaKey.self] = newValue }
    }
}
