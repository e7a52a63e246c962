package import Platform
public import Vapor

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

/// A stored file as read back: a file on this machine's disk (streamed from there) or its bytes.
public enum StoredFileContent: Sendable {
    case file(path: String)
    case bytes(Data)
}

/// Where uploaded files live: this instance's disk (`DiskFileStorage`, the default with SQLite),
/// the database (`DatabaseFileStorage`, the default with PostgreSQL, so every instance serves every
/// photo) or an S3-compatible bucket (`S3FileStorage`). Files are named by the SHA-256 of their
/// content, so the same picture uploaded twice is stored once and a name can never point at other bytes.
public protocol FileStorage: Sendable {
    /// Where the files are, for the start-up log (`disk ./data/uploads`, `database`, `s3 bucket`).
    var place: String { get }
    /// Stores the bytes and returns their key (`<sha256>.<ext>`).
    func save(_ data: Data, as type: ImageType) async throws -> String
    func delete(key: String) async throws
    /// The file, or nil when the key is malformed or names no stored file.
    func content(of key: String) async throws -> StoredFileContent?
    /// The file's size in bytes, or nil when it is not stored.
    func size(of key: String) async throws -> Int?
}

extension FileStorage {
    /// The size of a stored file (what it counted against its owner's quota), 0 when gone or unreadable.
    package func byteCount(of key: String?) async -> Int {
        guard let key, Self.isValidKey(key) else { return 0 }
        return ((try? await size(of: key)) ?? nil) ?? 0
    }

    /// The key a file with these bytes has.
    package static func key(for data: Data, as type: ImageType) -> String {
        "\(SecureRandom.sha256Hex(data)).\(type.rawValue)"
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

extension Request {
    /// A stored file by key, with its type; files never change under a key, so browsers may cache
    /// them for good (and a browser that has it gets 304). Nil when the key names no stored file;
    /// 503 `file_storage_unavailable` when the bucket cannot be reached.
    package func storedFile(_ key: String) async throws -> Response? {
        let files = application.files
        guard type(of: files).isValidKey(key),
              let type = key.split(separator: ".").last.flatMap({ ImageType(rawValue: String($0)) }) else { return nil }
        let etag = "\"\(key.prefix(64))\""
        let response: Response
        if headers.first(name: .ifNoneMatch) == etag, try await files.size(of: key) != nil {
            response = Response(status: .notModified)
        } else {
            switch try await files.content(of: key) {
            case nil:
                return nil
            case .file(let path)?:
                response = try await fileio.asyncStreamFile(at: path, mediaType: type.mediaType)
            case .bytes(let data)?:
                response = Response(status: .ok, body: .init(data: data))
                response.headers.contentType = type.mediaType
            }
        }
        response.headers.replaceOrAdd(name: .eTag, value: etag)
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
