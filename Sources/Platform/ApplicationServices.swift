package import Vapor

extension Application {
    /// A service `configure` put in `storage`. Services are set once at start-up, before any
    /// request, so a missing one is a programming error, not a runtime condition: in a test, the
    /// test's app does not run the feature that sets it (add the feature to the test's list).
    package func configured<Key: StorageKey>(_ key: Key.Type) -> Key.Value {
        guard let value = storage[key] else { fatalError("configure() must set \(Key.self): is its feature among the app's features?") }
        return value
    }
}
