import Foundation

/// Looks up user-facing text by key in `Resources/translations/{ko,en,ja}.json`.
///
/// Loaded once at start-up. A key missing in English or Japanese falls back to Korean; a key
/// missing everywhere returns the key itself (a test keeps the three catalogs complete).
/// Placeholders are written `{name}` and filled from `arguments`.
public struct Translator: Sendable {
    public let catalogs: [Language: [String: String]]

    public init(catalogs: [Language: [String: String]]) {
        self.catalogs = catalogs
    }

    public static func load(from directory: String) throws -> Translator {
        var catalogs: [Language: [String: String]] = [:]
        for language in Language.allCases {
            let path = (directory as NSString).appendingPathComponent("\(language.rawValue).json")
            guard let data = FileManager.default.contents(atPath: path) else {
                throw TranslatorError(message: "missing translation catalog \(path)")
            }
            catalogs[language] = try JSONDecoder().decode([String: String].self, from: data)
        }
        return Translator(catalogs: catalogs)
    }

    /// Every text whose key starts with `prefix`, in `language` (Korean where it has none): what
    /// a page hands its scripts.
    public func texts(withPrefix prefix: String, _ language: Language) -> [String: String] {
        var texts: [String: String] = [:]
        for (key, value) in catalogs[.default] ?? [:] where key.hasPrefix(prefix) {
            texts[key] = catalogs[language]?[key] ?? value
        }
        return texts
    }

    /// Whether `key` has a text (in Korean, the default every language falls back to).
    public func has(_ key: String) -> Bool { catalogs[.default]?[key] != nil }

    public func text(_ key: String, _ language: Language, _ arguments: [String: String] = [:]) -> String {
        let text = catalogs[language]?[key] ?? catalogs[.default]?[key] ?? key
        guard !arguments.isEmpty else { return text }
        return Self.fill(text, arguments)
    }

    /// Replaces each `{name}` whose name is in `arguments` (and `{name|을/를}` with the value and the
    /// particle it takes); other braces stay as written. One pass
    /// over the text (pages fill dozens of texts; `replacingOccurrences` per argument was a
    /// visible part of their time). A value is never searched again for placeholders.
    package static func fill(_ text: String, _ arguments: [String: String]) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let inside = rest[rest.index(after: open)..<close]
            // `{name|을/를}`: the value and the particle its last sound takes (`KoreanParticle`).
            let bar = inside.firstIndex(of: "|")
            let name = bar.map { inside[..<$0] } ?? inside
            if let value = arguments[String(name)] {
                result += rest[..<open]
                result += value
                if let bar { result += KoreanParticle.choose(inside[inside.index(after: bar)...], after: value) }
                rest = rest[rest.index(after: close)...]
            } else {
                // Not a placeholder we fill: keep the brace and look again just after it.
                result += rest[...open]
                rest = rest[rest.index(after: open)...]
            }
        }
        result += rest
        return result
    }
}

struct TranslatorError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
