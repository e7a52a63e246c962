import Vapor

extension Application {
    /// A service `configure` put in `storage`. Services are set once at start-up, before any
    /// request, so a missing one is a programming error, not a runtime condition.
    package func configured<Key: StorageKey>(_ key: Key.Type) -> Key.Value {
        guard let value = storage[key] else { fatalError("configure() must set \(Key.self)") }
        return value
    }
}
