package import Foundation
import NIOConcurrencyHelpers
package import Plot
package import Vapor

/// The one JSON block a page hands its scripts (`Public/js/shared/config.js` reads it): the
/// language, the CSRF token for script requests to page routes, the texts the scripts show, and
/// whatever else the page needs. A JSON block is data, not script, so the CSP allows it.
package enum PageConfig {
    /// A value already encoded with `AppJSON` (an API response the page starts from), spliced into
    /// the block as it is rather than decoded into `Any` and encoded again.
    package struct Encoded: Sendable {
        package let data: Data
        package init(_ value: some Encodable) throws { data = try AppJSON.encoder().encode(value) }
        /// JSON encoded before (kept by `PageFragments.json`).
        package init(json: Data) { data = json }
    }

    package static func block(_ req: Request, stringPrefixes: [String] = [], values: [String: Any] = [:]) -> Node<HTML.BodyContext> {
        var object = values
        object["language"] = req.language.rawValue
        object["csrf"] = req.pageCSRFToken
        // Written by hand (`JSONBytes`), not with JSONSerialization: bridging `[String: Any]` to
        // NSDictionary and back was an eighth of a scripted page.
        var json = JSONBytes(capacity: 2_048)
        json.any(object)
        var escaped: [UInt8] = []
        escaped.reserveCapacity(json.bytes.count + 8_192)
        escaped.append(UInt8(ascii: "{"))
        // The texts are the same for every page of a language: encoded and escaped once, spliced.
        if values["strings"] == nil {
            escaped.append(contentsOf: #""strings":"#.utf8)
            escaped.append(contentsOf: req.application.scriptTexts.escapedJSON(prefixes: stringPrefixes, language: req.language,
                                                                               translator: req.application.translator))
            escaped.append(UInt8(ascii: ","))
        }
        Markup.appendScriptSafe(json.bytes.dropFirst(), to: &escaped)
        return .script(.attribute(named: "type", value: "application/json"), .id("page-config"), .raw(String(decoding: escaped, as: UTF8.self)))
    }
}

extension JSONBytes {
    /// A value of a page's config: strings, numbers, booleans, null (`NSNull`, or a nil optional),
    /// arrays, string-keyed dictionaries (keys sorted, so a page reads the same every time) and
    /// `PageConfig.Encoded` (already JSON). Anything else is written as null.
    package mutating func any(_ value: Any) {
        // The usual types by their exact type first: a failed cast is not free (casting a
        // dictionary or a number to `NSNull` bridges it to Foundation on Linux), and the switch
        // below tried up to nine for a page's dictionaries, 5 % of a mates page.
        let kind = type(of: value)
        if kind == String.self { return string(value as! String) }
        if kind == PageConfig.Encoded.self { return raw(bytesOf: (value as! PageConfig.Encoded).data) }
        if kind == Int.self { return int(value as! Int) }
        if kind == Bool.self { return raw(value as! Bool ? "true" : "false") }
        if kind == Double.self { return double(value as! Double) }
        if kind == [String: Any].self { return object(value as! [String: Any]) }
        if kind == [Any].self { return list(value as! [Any]) { $0.any($1) } }
        switch value {
        case let encoded as PageConfig.Encoded: raw(bytesOf: encoded.data)
        case let text as String: string(text)
        case is NSNull: raw("null")
        // Exact types first: on Linux an `NSNumber` in `Any` also casts to `Bool` and to `Int`.
        case let flag as Bool where type(of: value) == Bool.self: raw(flag ? "true" : "false")
        case let number as any BinaryInteger: int(Int(clamping: number))
        case let number as Double where type(of: value) == Double.self: double(number)
        case let number as Float: double(Double(number))
        case let list as [Any]: self.list(list) { $0.any($1) }
        case let object as [String: Any]: self.object(object)
        default:
            // Every value casts to `Optional<Any>`, so an optional is found by reflection instead.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                if let wrapped = mirror.children.first?.value { any(wrapped) } else { raw("null") }
            } else {
                assertionFailure("a page config value of type \(type(of: value)) is written as null")
                raw("null")
            }
        }
    }
}

extension JSONBytes {
    /// Keys sorted, so a page reads the same every time.
    private mutating func object(_ object: [String: Any]) {
        raw("{")
        for (index, key) in object.keys.sorted().enumerated() {
            if index > 0 { raw(",") }
            string(key)
            raw(":")
            any(object[key]!)
        }
        raw("}")
    }
}

/// The encoded texts a page's scripts get, per language and key prefixes, made on first use.
package final class ScriptTexts: Sendable {
    private let cache = NIOLockedValueBox<[String: [UInt8]]>([:])

    /// The texts as JSON, already escaped for a `<script type="application/json">` element.
    func escapedJSON(prefixes: [String], language: Language, translator: Translator) -> [UInt8] {
        let key = language.rawValue + "|" + prefixes.joined(separator: "|")
        if let cached = cache.withLockedValue({ $0[key] }) { return cached }
        var texts: [String: String] = [:]
        for prefix in prefixes {
            texts.merge(translator.texts(withPrefix: prefix, language)) { first, _ in first }
        }
        var json = JSONBytes(capacity: 8_192)
        json.any(texts)
        var escaped: [UInt8] = []
        Markup.appendScriptSafe(json.bytes[...], to: &escaped)
        cache.withLockedValue { $0[key] = escaped }
        return escaped
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
