import Platform
import SocketIO
import Vapor

/// An `application/x-www-form-urlencoded` body read the way old mobile clients write it, by key:
/// `+` or `%20` for spaces, UTF-8 percent escapes, arrays as repeated keys (`a=1&a=2`) or with
/// brackets (`a[]=1&a[]=2`), a lone value for a one-element array, an absent key for an empty one.
/// The Content-Type is not checked (some clients send none, some add `; charset=utf-8`), and the
/// query string is never read: a value sent there does not count as sent.
struct LenientForm: Sendable {
    package private(set) var fields: [(key: String, value: String)] = []

    init(_ text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = Self.decode(parts[0]), !key.isEmpty else { continue }
            let value = parts.count == 2 ? Self.decode(parts[1]) : ""
            // A value that is not valid percent-encoded UTF-8 is left out, as if not sent.
            if let value { fields.append((key, value)) }
        }
    }

    init(request: Request) {
        guard let buffer = request.body.data else {
            self.init("")
            return
        }
        self.init(String(decoding: buffer.readableBytesView, as: UTF8.self))
    }

    private static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// The first value of `key` (or `key[]`).
    func value(_ key: String) -> String? {
        fields.first { $0.key == key || $0.key == key + "[]" }?.value
    }

    /// Every value of `key`, `key[]` and `key[0]`, `key[1]`… in the order sent; empty when absent.
    func values(_ key: String) -> [String] {
        fields.filter { field in
            field.key == key || field.key == key + "[]"
                || (field.key.hasPrefix(key + "[") && field.key.hasSuffix("]") && Int(field.key.dropFirst(key.count + 1).dropLast()) != nil)
        }.map(\.value)
    }

    /// A whole number sent as decimal text (`"1"`, `" 1 "`, `"1.0"`); nil when absent or not one.
    func integer(_ key: String) -> Int? {
        guard let text = value(key)?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let whole = Int(text) { return whole }
        guard let number = Double(text), number.isFinite, number == number.rounded(), abs(number) < 1e15 else { return nil }
        return Int(number)
    }

    /// A finite decimal number; nil when absent or not one.
    func number(_ key: String) -> Double? {
        guard let text = value(key)?.trimmingCharacters(in: .whitespaces), let number = Double(text), number.isFinite else { return nil }
        return number
    }
}
