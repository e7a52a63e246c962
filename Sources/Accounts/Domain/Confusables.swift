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

        /// Parses `confusables.txt`: `source ; prototype… ; type # comment` lines.
        public init(text: String) throws {
            var prototypes: [UInt32: [Unicode.Scalar]] = [:]
            var version = "unknown"
            for line in text.split(whereSeparator: \.isNewline) {
                let content = line.drop { $0 == "\u{FEFF}" }
                if content.hasPrefix("# Version:") { version = content.dropFirst("# Version:".count).trimmingCharacters(in: .whitespaces) }
                guard let first = content.first, first.isHexDigit else { continue }
                let fields = content.split(separator: ";", maxSplits: 2).map { $0.trimmingCharacters(in: .whitespaces) }
                guard fields.count >= 2, let source = UInt32(fields[0], radix: 16) else { throw Malformed(line: String(line)) }
                let targets = try fields[1].split(separator: " ").map { hex -> Unicode.Scalar in
                    guard let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else { throw Malformed(line: String(line)) }
                    return scalar
                }
                prototypes[source] = targets
            }
            guard !prototypes.isEmpty else { throw Malformed(line: "no mappings") }
            self.prototypes = prototypes
            self.version = version
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

    /// Reads the table from the resource folder (the server's `ResourceRoot`).
    public static func load(root: String) throws -> Table {
        let folder = root.hasSuffix("/") ? root : root + "/"
        return try Table(text: String(contentsOfFile: folder + resourcePath, encoding: .utf8))
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed: Table?

    /// Makes `table` the one `skeleton` uses (the server's start, before anything reads a nickname).
    public static func use(_ table: Table) {
        lock.withLock { installed = table }
    }

    /// The table in use: the one the server installed at start, or (a test calling the rules
    /// directly) the one in `RESOURCES_DIR` or the working directory. Its absence is a broken
    /// install, like missing translations.
    public static var table: Table {
        lock.withLock {
            if let installed { return installed }
            do {
                let root = ProcessInfo.processInfo.environment["RESOURCES_DIR"] ?? FileManager.default.currentDirectoryPath
                let table = try load(root: root)
                installed = table
                return table
            } catch {
                fatalError("\(error)")
            }
        }
    }

    public static func skeleton(_ text: String) -> String { table.skeleton(text) }
}
