import Foundation

/// Unicode's confusable characters (UTS #39, `Resources/unicode/confusables.txt`, shipped as
/// Unicode publishes it; its version is the file's `# Version:` line): for each character drawn
/// like another, the characters it is drawn like. Two strings with one `skeleton` look alike:
/// Cyrillic `һ` and Latin `h`, Armenian `օ` and `o`, `I` and `l`, `0` and `O`.
public enum Confusables {
    public static let resourcePath = "Resources/unicode/confusables.txt"

    public struct Table: Sendable {
        let prototypes: [UInt32: [Unicode.Scalar]]
        /// The data's Unicode version (`13.0.0`).
        public let version: String
        public var count: Int { prototypes.count }

        /// Parses `confusables.txt`: `source ; prototype… ; type # comment` lines. Read as bytes:
        /// the file has 6,000+ lines and every server start (and every test's app) reads it.
        public init(text: String) throws {
            var prototypes: [UInt32: [Unicode.Scalar]] = [:]
            var version = "unknown"
            let bytes = Array(text.utf8)
            for var line in bytes.split(separator: UInt8(ascii: "\n")) {
                if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }  // the BOM
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                let versionMark = Array("# Version:".utf8)
                if line.starts(with: versionMark) {
                    version = String(decoding: line.dropFirst(versionMark.count), as: UTF8.self).trimmingCharacters(in: .whitespaces)
                }
                guard let first = line.first, Self.hexDigit(first) != nil else { continue }
                let fields = line.split(separator: UInt8(ascii: ";"), maxSplits: 2, omittingEmptySubsequences: false)
                let malformed = Malformed(line: String(decoding: line, as: UTF8.self))
                guard fields.count >= 2, let source = Self.hex(fields[0]) else { throw malformed }
                var targets: [Unicode.Scalar] = []
                for word in fields[1].split(separator: UInt8(ascii: " ")) {
                    guard let value = Self.hex(word), let scalar = Unicode.Scalar(value) else { throw malformed }
                    targets.append(scalar)
                }
                guard !targets.isEmpty else { throw malformed }
                prototypes[source] = targets
            }
            guard !prototypes.isEmpty else { throw Malformed(line: "no mappings") }
            self.prototypes = prototypes
            self.version = version
        }

        /// A hexadecimal number with spaces around it (`0061 `), or nil.
        private static func hex(_ word: ArraySlice<UInt8>) -> UInt32? {
            var value: UInt32 = 0
            var digits = 0
            for byte in word where byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") {
                guard let digit = hexDigit(byte), digits < 8 else { return nil }
                value = value << 4 | digit
                digits += 1
            }
            return digits > 0 ? value : nil
        }

        private static func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            default: nil
            }
        }

        /// UTS #39's skeleton: decomposed (NFD), each character replaced by its prototype, decomposed again.
        public func skeleton(_ text: String) -> String {
            var scalars = String.UnicodeScalarView()
            for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
                if let prototype = prototypes[scalar.value] { scalars.append(contentsOf: prototype) } else { scalars.append(scalar) }
            }
            return String(scalars).decomposedStringWithCanonicalMapping
        }
    }

    public struct Malformed: Error, CustomStringConvertible {
        public let line: String
        public var description: String { "\(Confusables.resourcePath) has a line it cannot be read from: \(line)" }
    }

    /// Reads the table from the resource folder (the server's `ResourceRoot`), once per file and
    /// process: the file is part of the install and does not change while it runs, and a test
    /// process configures hundreds of apps.
    public static func load(root: String) throws -> Table {
        let folder = root.hasSuffix("/") ? root : root + "/"
        let path = folder + resourcePath
        if let table = lock.withLock({ loaded[path] }) { return table }
        let table = try Table(text: String(contentsOfFile: path, encoding: .utf8))
        lock.withLock { loaded[path] = table }
        return table
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed: Table?
    nonisolated(unsafe) private static var loaded: [String: Table] = [:]

    /// Makes `table` the one `skeleton` uses (the server's start, before anything reads a nickname).
    public static func use(_ table: Table) {
        lock.withLock { installed = table }
    }

    /// The table in use: the one the server installed at start, or (a test calling the rules
    /// directly) the one in `RESOURCES_DIR` or the working directory. Its absence is a broken
    /// install, like missing translations.
    public static var table: Table {
        if let installed = lock.withLock({ installed }) { return installed }
        do {
            let root = ProcessInfo.processInfo.environment["RESOURCES_DIR"] ?? FileManager.default.currentDirectoryPath
            let table = try load(root: root)
            return lock.withLock {
                if let installed { return installed }
                installed = table
                return table
            }
        } catch {
            fatalError("\(error)")
        }
    }

    public static func skeleton(_ text: String) -> String { table.skeleton(text) }
}
