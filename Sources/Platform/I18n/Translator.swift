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

    public func text(_ key: String, _ language: Language, _ arguments: [String: String] = [:]) -> String {
        var text = catalogs[language]?[key] ?? catalogs[.default]?[key] ?? key
        for (name, value) in arguments {
            text = text.replacingOccurrences(of: "{\(name)}", with: value)
        }
        return text
    }
}

package struct TranslatorError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}
