package import FluentKit
import Foundation
import Platform
import Vapor

/// The devices an account is signed in on: its live sessions, listed for its owner, each ended on
/// its own or all but this one at once (their tokens stop working and their sockets close, on
/// every instance).
extension AccountService {
    /// One signed-in device.
    package struct SignedInDevice: Sendable {
        package let id: UUID
        package let kind: AuthSession.Kind
        /// "Chrome · Android" (`AccountRules.deviceLabel`); nil when its user agent says nothing.
        package let device: String?
        package let createdAt: Date?
        package let lastSeenAt: Date?
        package let current: Bool
    }

    /// This device first, then the others, the latest used first.
    package func signedInDevices(of user: User, current: UUID?) async throws -> [SignedInDevice] {
        let now = environment.now()
        let devices = try await store.liveSessions(of: try user.requireID(), now: now).map { session in
            SignedInDevice(id: session.id, kind: session.kind, device: AccountRules.deviceLabel(userAgent: session.userAgent),
                           createdAt: session.createdAt, lastSeenAt: session.lastSeenAt ?? session.createdAt, current: session.id == current)
        }
        return devices.filter(\.current) + devices.filter { !$0.current }
    }

    /// Ends one of the account's live sessions (this one too, if named): 404 when it is not one.
    package func endSession(_ id: UUID, of user: User) async throws {
        let now = environment.now()
        let ended = try await store.revokeSessions(of: try user.requireID(), keeping: nil, only: id, at: now)
        guard !ended.isEmpty else { throw AppError.notFound("session_not_found") }
    }

    /// Ends every live session of the account but `current`. How many ended.
    package func signOutOthers(_ user: User, keeping current: UUID?) async throws -> Int {
        try await store.revokeSessions(of: try user.requireID(), keeping: current, at: environment.now()).count
    }
}
