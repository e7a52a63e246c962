import Vapor

extension Request {
    private struct SentCookiesKey: StorageKey { typealias Value = [Substring: Substring] }

    /// The value of the cookie `name` as this request sent it; nil when it did not send one.
    ///
    /// Vapor's `cookies` parses the whole Cookie header with its general directive parser on every
    /// read, and a page reads four to six cookies (CSRF, session, device, language, the menu game's):
    /// that was a tenth of a light page. This parses the header once per request, with Vapor's
    /// rules: `;` and `,` separate, blanks around names and values are trimmed, one pair of
    /// surrounding quotes is removed, and the last cookie of a name wins.
    package func cookie(_ name: String) -> String? {
        let sent: [Substring: Substring]
        if let parsed = storage[SentCookiesKey.self] {
            sent = parsed
        } else {
            sent = Self.parseCookieHeaders(headers[.cookie])
            storage[SentCookiesKey.self] = sent
        }
        return sent[Substring(name)].map(String.init)
    }

    /// Every `name=value` of the Cookie headers; pairs without `=` or with an empty name are skipped.
    static func parseCookieHeaders(_ headers: [String]) -> [Substring: Substring] {
        var cookies: [Substring: Substring] = [:]
        for header in headers {
            var rest = Substring(header)
            while !rest.isEmpty {
                let end = rest.utf8.firstIndex { $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: ",") } ?? rest.endIndex
                let pair = rest[..<end]
                rest = end == rest.endIndex ? rest[end...] : rest[rest.utf8.index(after: end)...]
                guard let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
                let name = trimmed(pair[..<equals])
                guard !name.isEmpty else { continue }
                var value = trimmed(pair[pair.utf8.index(after: equals)...])
                if value.utf8.count >= 2, value.utf8.first == UInt8(ascii: "\""), value.utf8.last == UInt8(ascii: "\"") {
                    value = value.dropFirst().dropLast()
                }
                cookies[name] = value
            }
        }
        return cookies
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = text.utf8.firstIndex(where: { !isBlank($0) }), let last = text.utf8.lastIndex(where: { !isBlank($0) }) else {
            return text[text.endIndex...]
        }
        return text[first...last]
    }
}
