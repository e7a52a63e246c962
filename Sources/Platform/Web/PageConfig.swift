import Foundation
import NIOConcurrencyHelpers
import Plot
import Vapor

/// The one JSON block a page hands its scripts (`Public/js/shared/config.js` reads it): the
/// language, the CSRF token for script requests to page routes, the texts the scripts show, and
/// whatever else the page needs. A JSON block is data, not script, so the CSP allows it.
package enum PageConfig {
    /// A value already encoded with `AppJSON` (an API response the page starts from), spliced into
    /// the block as it is rather than decoded into `Any` and encoded again.
    package struct Encoded {
        package let data: Data
        package init(_ value: some Encodable) throws { data = try AppJSON.encoder().encode(value) }
    }

    package static func block(_ req: Request, stringPrefixes: [String] = [], values: [String: Any] = [:]) -> Node<HTML.BodyContext> {
        var object: [String: Any] = ["language": req.language.rawValue, "csrf": req.csrfToken]
        var spliced: [(key: String, json: Data)] = []
        for (key, value) in values {
            if let encoded = value as? Encoded { spliced.append((key, encoded.data)) } else { object[key] = value }
        }
        // The texts are the same for every page of a language: encoded once, spliced like the rest.
        if object["strings"] == nil {
            spliced.append(("strings", req.application.scriptTexts.json(prefixes: stringPrefixes, language: req.language, translator: req.application.translator)))
        }
        // Not `.sortedKeys`: on Linux it sorts with ICU collation, which cost more than the rest of a page.
        var json = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        for (key, value) in spliced {
            // `object` always has members, so each spliced pair goes after its `{` with a comma.
            var pair = (try? JSONSerialization.data(withJSONObject: [key], options: [])) ?? Data()
            pair = pair.dropFirst().dropLast() + Data(":".utf8) + value + Data(",".utf8)
            json.insert(contentsOf: pair, at: json.startIndex + 1)
        }
        return .script(.attribute(named: "type", value: "application/json"), .id("page-config"), .raw(Markup.scriptJSON(json)))
    }
}

/// The encoded texts a page's scripts get, per language and key prefixes, made on first use.
package final class ScriptTexts: Sendable {
    private let cache = NIOLockedValueBox<[String: Data]>([:])

    package func json(prefixes: [String], language: Language, translator: Translator) -> Data {
        let key = language.rawValue + "|" + prefixes.joined(separator: "|")
        if let cached = cache.withLockedValue({ $0[key] }) { return cached }
        var texts: [String: String] = [:]
        for prefix in prefixes {
            texts.merge(translator.texts(withPrefix: prefix, language)) { first, _ in first }
        }
        let data = (try? JSONSerialization.data(withJSONObject: texts)) ?? Data("{}".utf8)
        cache.withLockedValue { $0[key] = data }
        return data
    }

    package init() {}
}

extension Application {
    private struct ScriptTextsKey: StorageKey { typealias Value = ScriptTexts }

    /// Set in `configure`, beside the translator it reads.
    package var scriptTexts: ScriptTexts {
        get { configured(ScriptTextsKey.self) }
        set { storage[ScriptTextsKey.self] = newValue }
    }
}
