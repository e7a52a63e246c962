import Foundation

/// A feature's environment (issue 59): what its services and store use beside their database,
/// made once in its `configure` and kept under one key. `now` is the feature's one source of time,
/// which tests move instead of waiting or rewriting rows.
package protocol FeatureEnvironment: Sendable {
    var now: @Sendable () -> Date { get set }
}
