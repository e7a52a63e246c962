package import Fluent
import NIOConcurrencyHelpers
import Platform
import Vapor

/// Files are stored by content, so one file may back a profile picture and a review photo at
/// once. Every feature that keeps keys of `app.files` registers how to find them (in its
/// `configure`), and a file is deleted only when none of them still uses it.
package final class FileReferences: Sendable {
    package typealias Check = @Sendable (_ key: String, _ database: any Database) async throws -> Bool
    private let checks = NIOLockedValueBox<[Check]>([])

    package init() {}

    /// `isUsed` answers whether the feature still shows the file with this key.
    package func register(_ isUsed: @escaping Check) {
        checks.withLockedValue { $0.append(isUsed) }
    }

    func isUsed(_ key: String, on database: any Database) async throws -> Bool {
        for check in checks.withLockedValue({ $0 }) where try await check(key, database) { return true }
        return false
    }
}

extension Application {
    private struct FileReferencesKey: StorageKey { typealias Value = FileReferences }

    package var fileReferences: FileReferences {
        if let existing = storage[FileReferencesKey.self] { return existing }
        let references = FileReferences()
        storage[FileReferencesKey.self] = references
        return references
    }
}

extension FileStorage {
    /// Deletes the file unless some feature still uses it.
    package func deleteIfUnused(_ key: String?, on database: any Database, references: FileReferences) async throws {
        guard let key, try await !references.isUsed(key, on: database) else { return }
        try await delete(key: key)
    }
}
