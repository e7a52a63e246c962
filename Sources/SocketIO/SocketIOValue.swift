import Foundation

/// A JSON value as Socket.IO carries it (event arguments, acknowledgements, the CONNECT auth payload).
///
/// Numbers are doubles, as in JavaScript: integers beyond 2^53 lose precision, so identifiers that
/// large travel as strings. Written by hand rather than through `JSONEncoder`, so what goes on the
/// wire is compact and the same on every platform (`42["chat",{"text":"안녕"}]`).
package enum SocketIOValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([SocketIOValue])
    case object([String: SocketIOValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([SocketIOValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: SocketIOValue].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

// MARK: - Conveniences

extension SocketIOValue {
    /// The text of a `.string`; nil for every other kind.
    package var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    package var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    package var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    package var array: [SocketIOValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    package var object: [String: SocketIOValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// A member of an `.object`; nil for a missing key or another kind.
    package subscript(key: String) -> SocketIOValue? {
        object?[key]
    }

    /// Any `Encodable` as it would be written as JSON (`JSONEncoder`'s defaults: dates as numbers,
    /// so give features' types ISO 8601 strings where a client reads dates).
    package init(encoding value: some Encodable) throws {
        let data = try JSONEncoder().encode(value)
        self = try JSONDecoder().decode(SocketIOValue.self, from: data)
    }

    /// The value read as a `Decodable` type, as `JSONDecoder` would read its JSON.
    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    /// JSON text parsed; nil when it is not JSON.
    package init?(json text: some StringProtocol) {
        guard let value = try? JSONDecoder().decode(SocketIOValue.self, from: Data(text.utf8)) else { return nil }
        self = value
    }

    /// Compact JSON text; non-ASCII as UTF-8, slashes unescaped; NaN and infinities as `null`.
    package var json: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null:
            output += "null"
        case .bool(let value):
            output += value ? "true" : "false"
        case .number(let value):
            output += Self.format(value)
        case .string(let value):
            Self.quote(value, into: &output)
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                Self.quote(key, into: &output)
                output += ":"
                members[key]!.write(to: &output)
            }
            output += "}"
        }
    }

    /// Integers without a fraction (`3`, not `3.0`), as JavaScript writes them.
    private static func format(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 {
            return String(Int64(number))
        }
        return "\(number)"
    }

    private static func quote(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{8}": output += "\\b"
            case "\u{c}": output += "\\f"
            // Control characters, and the two separators JavaScript's `eval` once choked on.
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

// MARK: - Literals (handlers and tests write `["text": "안녕", "count": 2]`)

extension SocketIOValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    package init(nilLiteral: ()) { self = .null }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int) { self = .number(Double(value)) }
    package init(floatLiteral value: Double) { self = .number(value) }
    package init(stringLiteral value: String) { self = .string(value) }
    package init(arrayLiteral elements: SocketIOValue...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, SocketIOValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
