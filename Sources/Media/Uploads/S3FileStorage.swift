import Foundation
import Logging
import NIOHTTP1
import Platform
import Vapor

/// Files in an S3-compatible bucket, under `uploads/`: every instance reads them, and the
/// bucket's own replication and versioning keep them. A bucket that cannot be reached is 503
/// `file_storage_unavailable` (logged), never a 500.
struct S3FileStorage: FileStorage {
    let client: S3Client
    private let logger: Logger
    static let prefix = "uploads/"

    init(client: S3Client, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    var place: String { "S3 bucket \(client.configuration.bucket) at \(client.configuration.endpoint)" }

    func save(_ data: Data, as type: ImageType) async throws -> String {
        let key = Self.key(for: data, as: type)
        try await reaching {
            // Objects never change under a key: one already there is this file.
            if try await client.size(Self.prefix + key) == nil {
                try await client.put(Self.prefix + key, data, contentType: type.mediaType.serialize())
            }
        }
        return key
    }

    func delete(key: String) async throws {
        guard Self.isValidKey(key) else { return }
        try await reaching { try await client.delete(Self.prefix + key) }
    }

    func content(of key: String) async throws -> StoredFileContent? {
        guard Self.isValidKey(key) else { return nil }
        return try await reaching { try await client.get(Self.prefix + key).map { .bytes($0) } }
    }

    func size(of key: String) async throws -> Int? {
        guard Self.isValidKey(key) else { return nil }
        return try await reaching { try await client.size(Self.prefix + key) }
    }

    private func reaching<T>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let failure as S3Client.Failure {
            logger.error("file storage: \(failure.description)")
            throw AppError(.serviceUnavailable, "file_storage_unavailable", headers: ["Retry-After": "30"])
        }
    }
}
