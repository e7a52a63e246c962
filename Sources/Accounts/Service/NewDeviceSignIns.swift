package import Foundation
import NIOConcurrencyHelpers
package import Vapor

/// A sign-in from a device the account has not used before (no session of it, live or kept, came
/// with the same user agent), told to whoever listens — the inbox puts an entry there and pushes it
/// (`account_new_device`), so someone who did not sign in sees it at once. An account's first
/// sign-in (its sign-up) is no news.
package struct NewDeviceSignIn: Sendable {
    package let userID: UUID
    package let sessionID: UUID
    /// "Chrome · Android" (`AccountRules.deviceLabel`), nil when its user agent says nothing.
    package let device: String?
}

package final class NewDeviceSignIns: Sendable {
    package typealias Listener = @Sendable (Application, NewDeviceSignIn) async throws -> Void
    private let listeners = NIOLockedValueBox<[Listener]>([])

    package init() {}

    /// Adds a listener (at start-up).
    package func listen(_ listener: @escaping Listener) {
        listeners.withLockedValue { $0.append(listener) }
    }

    /// Tells every listener; a listener's failure is logged, never the sign-in's.
    func announce(_ signIn: NewDeviceSignIn, app: Application) async {
        for listener in listeners.withLockedValue({ $0 }) {
            do {
                try await listener(app, signIn)
            } catch {
                app.logger.warning("accounts: a new device's sign-in was not told: \(error)")
            }
        }
    }
}

extension Application {
    private struct NewDeviceSignInsKey: StorageKey { typealias Value = NewDeviceSignIns }

    package var newDeviceSignIns: NewDeviceSignIns {
        if let signIns = storage[NewDeviceSignInsKey.self] { return signIns }
        let signIns = NewDeviceSignIns()
        storage[NewDeviceSignInsKey.self] = signIns
        return signIns
    }
}
