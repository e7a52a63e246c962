public import Foundation

/// The escapers for what the server writes into markup, one per place a value can land.
public enum Markup {
    /// Text written into HTML or XML (SVG) markup: attribute values (quoted with `"` or `'`) and
    /// element text alike.
    public static func escape(_ text: String) -> String {
        // Most values need nothing; skip the copy for them (attributes are on every page).
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'")
            || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") })
        else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// JSON to place inside a `<script type="application/json">` element: `<`, `>` and `&` are
    /// written as `\u003c`, `\u003e` and `\u0026`, which JSON reads as the same characters, so no
    /// value can close the element (`</script>`) or open a comment (`<!--`) that swallows the page.
    public static func scriptJSON(_ json: Data) -> String {
        var escaped: [UInt8] = []
        escaped.reserveCapacity(json.count + 16)
        json.withUnsafeBytes { appendScriptSafe($0.bindMemory(to: UInt8.self)[...], to: &escaped) }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// Appends `json` with `<`, `>` and `&` written as `\u003c`, `\u003e` and `\u0026` (see
    /// `scriptJSON`). Bytes, not Unicode scalars: the three are ASCII, which UTF-8 never uses inside
    /// a longer character, and a page's config runs through this on every page.
    package static func appendScriptSafe<Bytes: Collection>(_ json: Bytes, to escaped: inout [UInt8]) where Bytes.Element == UInt8 {
        for byte in json {
            switch byte {
            case UInt8(ascii: "<"): escaped.append(contentsOf: #"\u003c"#.utf8)
            case UInt8(ascii: ">"): escaped.append(contentsOf: #"\u003e"#.utf8)
            case UInt8(ascii: "&"): escaped.append(contentsOf: #"\u0026"#.utf8)
            default: escaped.append(byte)
            }
        }
    }
}
