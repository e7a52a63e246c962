/// An optional that is written as `null` when absent, as the API's convention says ("fields that do
/// not apply yet are explicit nulls"), where Swift's synthesized `Encodable` would leave the key out.
/// Decoding reads `null` or a missing key as nil, like a plain optional.
@propertyWrapper
public struct NullEncoded<Value: Codable & Sendable>: Codable, Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension NullEncoded: Equatable where Value: Equatable {}

extension KeyedDecodingContainer {
    /// A missing key decodes as nil, as for a plain optional.
    public func decode<Value>(_ type: NullEncoded<Value>.Type, forKey key: Key) throws -> NullEncoded<Value> {
        try decodeIfPresent(type, forKey: key) ?? NullEncoded(wrappedValue: nil)
    }
}

extension NullEncoded: Hashable where Value: Hashable {}
