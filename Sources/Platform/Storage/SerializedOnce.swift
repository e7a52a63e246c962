import NIOConcurrencyHelpers
package import SQLKit

/// A part of a statement that never changes (a long column list): serialized once per dialect,
/// then written as text. SQLKit serializes every identifier of a statement on every run, quoting
/// and escaping each name; for an order's page, forty columns of it were a tenth of the request.
/// Only text without binds can be kept (a bind's value differs per run).
package final class SerializedOnce: Sendable {
    private let make: @Sendable () -> any SQLExpression
    private let texts = NIOLockedValueBox<[String: String]>([:])

    package init(_ make: @escaping @Sendable () -> any SQLExpression) {
        self.make = make
    }

    /// The expression as `database`'s dialect writes it.
    package func expression(for database: any SQLDatabase) -> SQLRaw {
        let dialect = database.dialect.name
        if let text = texts.withLockedValue({ $0[dialect] }) { return SQLRaw(text) }
        let serialized = database.serialize(make())
        precondition(serialized.binds.isEmpty, "SerializedOnce keeps text only; a bind's value is each run's own")
        texts.withLockedValue { $0[dialect] = serialized.sql }
        return SQLRaw(serialized.sql)
    }
}
