import Vapor

/// Image formats we accept, recognised by their first bytes, never by name or declared type.
public enum ImageType: String, Sendable, CaseIterable {
    case jpeg = "jpg", png, gif, webp

    public var mediaType: HTTPMediaType {
        switch self {
        case .jpeg: return .jpeg
        case .png: return .png
        case .gif: return .gif
        case .webp: return HTTPMediaType(type: "image", subType: "webp")
        }
    }

    /// The type the bytes really are, or nil for anything that is not one of our image formats.
    public static func sniff(_ data: Data) -> ImageType? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        return nil
    }
}

/// Where uploaded files live. Files are named by the SHA-256 of their content, so the same
/// picture uploaded twice is stored once and a name can never point at other bytes.
public protocol FileStorage: Sendable {
    /// Stores the bytes and returns their key (`<sha256>.<ext>`).
    func save(_ data: Data, as type: ImageType) async throws -> String
    func delete(key: String) async throws
    /// The on-disk path for serving, or nil when the key is malformed or the file is gone.
    func path(for key: String) -> String?
}

extension FileStorage {
    /// The size of a stored file (what it counted against its owner's quota), 0 when gone.
    package func byteCount(of key: String?) -> Int {
        guard let key, let path = path(for: key),
              let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber else { return 0 }
        return size.intValue
    }
}

extension FileStorage {
    /// Public URL path of a stored file.
    public func urlPath(for key: String) -> String { "/uploads/\(key)" }

    /// Keys are 64 hex digits, a dot and a known extension: nothing that can climb out of the folder.
    public static func isValidKey(_ key: String) -> Bool {
        let parts = key.split(separator: ".")
        guard parts.count == 2, parts[0].count == 64, parts[0].allSatisfy(\.isHexDigit),
              ImageType(rawValue: String(parts[1])) != nil
        else { return false }
        return true
    }
}

/// Files under `DATA_DIR/uploads`, written to a temporary name then renamed so a reader never
/// sees half a file.
public struct DiskFileStorage: FileStorage {
    public let directory: String

    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    public func save(_ data: Data, as type: ImageType) async throws -> String {
        let key = "\(SecureRandom.sha256Hex(data)).\(type.rawValue)"
        let destination = URL(fileURLWithPath: directory).appendingPathComponent(key)
        if FileManager.default.fileExists(atPath: destination.path) { return key }
        let temporary = URL(fileURLWithPath: directory).appendingPathComponent(".\(UUID().uuidString).tmp")
        try data.write(to: temporary, options: .atomic)
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

    public func path(for key: String) -> String? {
        guard Self.isValidKey(key) else { return nil }
        let path = (directory as NSString).appendingPathComponent(key)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}

extension Request {
    /// A stored file by key, streamed with its type; files never change under a key, so browsers
    /// may cache them for good. Nil when the key names no stored file.
    package func storedFile(_ key: String) async throws -> Response? {
        guard let path = application.files.path(for: key),
              let type = key.split(separator: ".").last.flatMap({ ImageType(rawValue: String($0)) }) else { return nil }
        let response = try await fileio.asyncStreamFile(at: path, mediaType: type.mediaType)
        response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=31536000, immutable")
        return response
    }
}

extension Application {
    private struct FileStorageKey: StorageKey { typealias Value = any FileStorage }

    public var files: any FileStorage {
        get { configured(FileStorageKey.self) }
        set { storage[FileStorageKey.self] = newValue }
    }
}

extension ImageProblem {
    /// The answer to an upload refused for this reason; `unsupported` names the types the
    /// route takes (profile pictures take GIF too, review photos do not).
    package func appError(unsupportedMessageKey: String? = nil) -> AppError {
        switch self {
        case .tooManyPixels:
            return AppError(.unprocessableEntity, "image_too_many_pixels",
                            arguments: ["side": String(ImageCleaner.maxSide), "megapixels": String(ImageCleaner.maxPixels / 1_000_000)])
        case .unsupportedType, .malformed:
            return AppError(.unsupportedMediaType, "unsupported_image_type", messageKey: unsupportedMessageKey)
        }
    }
}
