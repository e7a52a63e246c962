public import Foundation
import class NIOPosix.NIOThreadPool

/// Files under `DATA_DIR/uploads`, written to a temporary name then renamed so a reader never
/// sees half a file. Only the instance that took a file can serve it: with several instances,
/// files belong in the database or a bucket (`FileStorageSetting`).
public struct DiskFileStorage: FileStorage {
    public let directory: String

    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    public var place: String { "disk \(directory)" }

    public func save(_ data: Data, as type: ImageType) async throws -> String {
        let key = Self.key(for: data, as: type)
        let destination = URL(fileURLWithPath: directory).appendingPathComponent(key)
        if FileManager.default.fileExists(atPath: destination.path) { return key }
        let temporary = URL(fileURLWithPath: directory).appendingPathComponent(".\(UUID().uuidString).tmp")
        // A blocking write of up to megabytes: on the thread pool, not the event loop the request
        // runs on (Swift concurrency runs on the event loops).
        try await NIOThreadPool.singleton.runIfActive { try data.write(to: temporary, options: .atomic) }
        do {
            try FileManager.default.moveItem(at: temporary, to: destination)
        } catch where FileManager.default.fileExists(atPath: destination.path) {
            // Another request stored the same bytes first; theirs is identical.
            try? FileManager.default.removeItem(at: temporary)
        }
        return key
    }

    public func delete(key: String) async throws {
        guard let path = path(for: key) else { return }
        try FileManager.default.removeItem(atPath: path)
    }

    public func content(of key: String) async throws -> StoredFileContent? {
        path(for: key).map { .file(path: $0) }
    }

    public func size(of key: String) async throws -> Int? {
        guard let path = path(for: key) else { return nil }
        return (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
    }

    /// The on-disk path of a stored file, or nil when the key is malformed or the file is gone.
    public func path(for key: String) -> String? {
        guard Self.isValidKey(key) else { return nil }
        let path = (directory as NSString).appendingPathComponent(key)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Every stored file's key (temporary files and anything else in the folder left out).
    package func keys() throws -> [String] {
        guard FileManager.default.fileExists(atPath: directory) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter(Self.isValidKey).sorted()
    }
}
