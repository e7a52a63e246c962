package import Fluent
import Metrics
package import Platform
import SQLKit
import Vapor

/// Every stored byte belongs to an account's quota: an account's uploaded files (review photos,
/// a profile picture) may take `bytesPerAccount` in all (`bytesPerNewAccount` while the account is
/// younger than `newAccountAge`), counted in `storage_usage` (one row per account). A writer
/// reserves the bytes before it stores them and gives them back when a file is not kept or is
/// deleted; the reservation is one conditional update of the account's row, so parallel uploads
/// cannot all pass a sum taken before any of them was written.
///
/// Accounts cost one sign-up, so young accounts also share a daily budget per network
/// (`bytesPerNetworkDay`, counted in `storage_network_days`): fresh accounts from one address
/// cannot multiply the quota. Uploads are also refused while the disk holding the files has less
/// than `minimumFreeBytes` free, so a full disk never stops the database from writing. The
/// counters are `StorageQuotaStore`'s.
package struct StorageQuota: Sendable {
    /// Accounts younger than this have the smaller quota and share their network's daily budget.
    package static let newAccountAge: TimeInterval = 3 * 24 * 3600

    let bytesPerAccount: Int
    let bytesPerNewAccount: Int
    let bytesPerNetworkDay: Int
    let minimumFreeBytes: Int
    /// Where the files are, for the free-space check (nil: not on a local disk).
    package let directory: String?

    /// Who stores the bytes: the account, when it was made, and the network it uploads from.
    package struct Uploader: Sendable {
        package let account: UUID
        package let accountCreatedAt: Date?
        package let network: String

        package init(account: UUID, accountCreatedAt: Date?, network: String) {
            self.account = account
            self.accountCreatedAt = accountCreatedAt
            self.network = network
        }

        /// Younger than `newAccountAge` (an account without a date counts as young).
        package func isNew(now: Date) -> Bool {
            (accountCreatedAt ?? now) > now.addingTimeInterval(-StorageQuota.newAccountAge)
        }
    }

    package init(settings: Settings, directory: String?) {
        bytesPerAccount = settings.limits.uploadQuotaMB * 1_048_576
        bytesPerNewAccount = min(settings.limits.newAccountUploadQuotaMB, settings.limits.uploadQuotaMB) * 1_048_576
        bytesPerNetworkDay = settings.limits.networkDailyUploadMB * 1_048_576
        minimumFreeBytes = settings.limits.minimumFreeDiskMB * 1_048_576
        self.directory = directory
    }

    /// Takes `bytes` of the uploader's quota (and, for a young account, of its network's day), or
    /// throws with nothing taken: 413 `storage_quota_exceeded`, 429 `network_upload_budget_exhausted`
    /// (until the next UTC day), or 503 `storage_full` when the disk is nearly full (logged, and
    /// counted in `whatweeat_uploads_refused_disk_full_total`).
    package func reserve(_ bytes: Int, by uploader: Uploader, on database: any Database, now: Date) async throws {
        if let directory, let free = try? FileManager.default.attributesOfFileSystem(forPath: directory)[.systemFreeSize] as? NSNumber,
           free.int64Value - Int64(bytes) < Int64(minimumFreeBytes) {
            database.logger.error("uploads refused: \(free.int64Value / 1_048_576) MB free on the uploads disk")
            Counter(label: "whatweeat_uploads_refused_disk_full_total").increment()
            throw AppError(.serviceUnavailable, "storage_full", headers: ["Retry-After": "3600"])
        }
        let isNew = uploader.isNew(now: now)
        let store = StorageQuotaStore(database: database)
        if isNew {
            guard try await store.takeNetworkDay(bytes, network: uploader.network, day: Self.day(now), limit: bytesPerNetworkDay) else {
                Counter(label: "whatweeat_uploads_refused_network_day_total").increment()
                let tomorrow = Calendar.utc.startOfDay(for: now).addingTimeInterval(24 * 3600)
                throw AppError(.tooManyRequests, "network_upload_budget_exhausted", arguments: ["max": "\(bytesPerNetworkDay / 1_048_576) MB"],
                               headers: ["Retry-After": String(max(1, Int(tomorrow.timeIntervalSince(now).rounded(.up))))])
            }
        }
        let limit = isNew ? bytesPerNewAccount : bytesPerAccount
        guard try await store.take(bytes, account: uploader.account, limit: limit) else {
            if isNew { await giveBackNetworkDay(bytes, of: uploader, on: database, now: now) }
            throw AppError(.payloadTooLarge, "storage_quota_exceeded", arguments: ["max": "\(limit / 1_048_576) MB"])
        }
    }

    /// Gives back what `reserve` took for bytes that were then not stored: the account's quota
    /// and, for a young account, its network's day.
    package func giveBack(_ bytes: Int, by uploader: Uploader, on database: any Database, now: Date) async {
        await release(bytes, for: uploader.account, on: database)
        if uploader.isNew(now: now) { await giveBackNetworkDay(bytes, of: uploader, on: database, now: now) }
    }

    private func giveBackNetworkDay(_ bytes: Int, of uploader: Uploader, on database: any Database, now: Date) async {
        guard bytes > 0 else { return }
        do {
            try await StorageQuotaStore(database: database).giveBackNetworkDay(bytes, network: uploader.network, day: Self.day(now))
        } catch {
            database.logger.warning("network upload budget not given back: \(error)")
        }
    }

    /// The UTC day a network's budget counts in (`2026-11-27`).
    package static func day(_ date: Date) -> String {
        let parts = Calendar.utc.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// Forgets the network days before yesterday (no budget reads them).
    package static func pruneJob() -> PeriodicJob {
        PeriodicJob("forgot past days' upload budgets", every: .seconds(3600)) { app in
            try await StorageQuotaStore(database: app.db).pruneNetworkDays(before: day(app.siteClock().addingTimeInterval(-24 * 3600)))
        }
    }

    /// Gives `bytes` back (a file not kept, or deleted). A failure is logged: it only leaves the
    /// account with less room than it has.
    package func release(_ bytes: Int, for account: UUID, on database: any Database) async {
        guard bytes > 0 else { return }
        do {
            try await StorageQuotaStore(database: database).giveBack(bytes, account: account)
        } catch {
            database.logger.warning("storage quota not given back: \(error)")
        }
    }

    /// Forgets a removed account's count (its files went with it).
    package func forget(_ account: UUID, on database: any Database) async throws {
        try await StorageQuotaStore(database: database).forget(account)
    }

    /// The bytes `account` stores now.
    package func used(by account: UUID, on database: any Database) async throws -> Int {
        try await StorageQuotaStore(database: database).used(by: account)
    }
}

/// The bytes young accounts uploaded per network and UTC day (`StorageQuota.bytesPerNetworkDay`).
package struct CreateStorageNetworkDays: NamedMigration {
    package func prepare(on database: any Database) async throws {
        try await database.schema(StorageQuotaStore.networkDays)
            .field("network", .string, .required)
            .field("day", .string, .required)
            .field("bytes", .int64, .required)
            .unique(on: "network", "day")
            .create()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(StorageQuotaStore.networkDays).delete()
    }

    package init() {}
}

package struct CreateStorageUsage: NamedMigration {
    package func prepare(on database: any Database) async throws {
        try await database.schema(StorageQuotaStore.usage)
            .field("account_id", .uuid, .required)
            .field("bytes", .int64, .required)
            .unique(on: "account_id")
            .create()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(StorageQuotaStore.usage).delete()
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
