package import FluentKit
package import Foundation
import NIOConcurrencyHelpers
package import Platform
package import Vapor

/// Live sessions (API and browser) with their users, kept in memory for a short time so that a signed-in
/// request does not read the database just to learn who is asking (it did, and that read bounded
/// every signed-in route at about a fifth of `/healthz`).
///
/// Sessions stay rows: this only remembers what a read returned. Whatever ends a session or
/// changes an account — logout, a refresh token's reuse, withdrawal, a nickname, language or photo
/// change; any new way to change `users` or `auth_sessions` (a role or password change) must do
/// the same through `AccountService` — calls `forget`, which drops the entry here at once and
/// announces it on the event bus, so every other instance drops it too. `lifetime` bounds how long an entry lives without being
/// read again from the database, should an announcement ever be lost.
///
/// A read that started before a `forget` never stores what it read (the generation check), so a
/// logout racing a request cannot leave the old session remembered.
package final class SessionCache: Sendable {
    package static let topic = "accounts.sessions"

    package enum Change: Equatable, Sendable {
        case session(UUID)
        case user(UUID)
        /// A session of this account started: only its device list is stale.
        case devices(UUID)
        /// The account was made: nothing remembered is stale, only the lists of accounts
        /// (`accountsVersion`). Apart from `.user`, so a sign-up does not make every page that
        /// names people (`followAccountChanges`) read again.
        case created(UUID)

        package var message: String {
            switch self {
            case .session(let id): return "session:" + id.uuidString
            case .user(let id): return "user:" + id.uuidString
            case .devices(let id): return "devices:" + id.uuidString
            case .created(let id): return "created:" + id.uuidString
            }
        }

        package init?(message: String) {
            let parts = message.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, let id = UUID(uuidString: parts[1]) else { return nil }
            switch parts[0] {
            case "session": self = .session(id)
            case "user": self = .user(id)
            case "devices": self = .devices(id)
            case "created": self = .created(id)
            default: return nil
            }
        }
    }

    /// What a read of the session and its user returned, as plain values: each request gets a
    /// `User` of its own to read and change.
    package struct Entry: Sendable {
        package let userID: UUID
        let sessionExpiresAt: Date
        package let storedAt: Date
        package let user: UserValues
    }

    package struct UserValues: Sendable {
        package let id: UUID
        package let email: String
        package let passwordHash: String
        package let nickname: String
        package let nicknameKey: String
        package let role: Role
        package let language: Language?
        package let profileImageKey: String?
        package let createdAt: Date?
        package let updatedAt: Date?

        package init(_ user: User) throws {
            id = try user.requireID()
            email = user.email
            passwordHash = user.passwordHash
            nickname = user.nickname
            nicknameKey = user.nicknameKey
            role = user.role
            language = user.language
            profileImageKey = user.profileImageKey
            createdAt = user.createdAt
            updatedAt = user.updatedAt
        }

        /// A `User` as if just read from its row (saving it updates that row).
        func makeUser() -> User {
            let user = User(id: id, email: email, passwordHash: passwordHash, nickname: nickname, nicknameKey: nicknameKey, role: role)
            user.language = language
            user.profileImageKey = profileImageKey
            user.createdAt = createdAt
            user.updatedAt = updatedAt
            user.$id.exists = true
            return user
        }
    }

    private struct State {
        var entries: [UUID: Entry] = [:]
        /// Browser sessions by the SHA-256 of their cookie (as stored in `auth_sessions`), so a
        /// page request finds its session without reading the row; the entry itself is `entries`'.
        var webSessions: [String: UUID] = [:]
        /// Moves on every `forget`; a read stores its result only if it has not moved meanwhile.
        var generation: UInt64 = 0
        /// Moves on every account's change (`.user`: renamed, suspended, deleted) and creation (`.created`).
        var accounts = 0
    }

    private let state = NIOLockedValueBox(State())
    package let lifetime: TimeInterval
    package let capacity: Int
    /// Each account's live sessions as its device list (`/me`) shows them: forgotten with the
    /// account's change, when one of its sessions starts, and all of them when any session ends
    /// (an ended session's account is not known here). When each was last seen is written every
    /// five minutes and not announced: the list is as old as `lifetime` at most.
    let deviceLists: PersonMemory<[AccountStore.SessionListing]>

    package init(lifetime: TimeInterval = 30, capacity: Int = 100_000) {
        self.lifetime = lifetime
        self.capacity = capacity
        deviceLists = PersonMemory(topic: Self.topic + ".devices", lifetime: lifetime, capacity: min(capacity, 20_000))
    }

    /// The session's user when remembered, still live and naming `userID`; nil means "read the
    /// database".
    package func user(session: UUID, userID: UUID, now: Date) -> User? {
        let entry = state.withLockedValue { $0.entries[session] }
        guard let entry, entry.userID == userID, entry.sessionExpiresAt > now, now.timeIntervalSince(entry.storedAt) < lifetime else { return nil }
        return entry.user.makeUser()
    }

    /// The browser session whose cookie hashes to `cookieHash`, with its user, when remembered
    /// and still live; nil means "read the database".
    func webSession(cookieHash: String, now: Date) -> (session: UUID, user: User)? {
        let found = state.withLockedValue { state -> (UUID, Entry)? in
            guard let session = state.webSessions[cookieHash], let entry = state.entries[session] else { return nil }
            return (session, entry)
        }
        guard let (session, entry) = found, entry.sessionExpiresAt > now, now.timeIntervalSince(entry.storedAt) < lifetime else { return nil }
        return (session, entry.user.makeUser())
    }

    /// Taken before reading the database; hand it back to `remember`.
    package var generation: UInt64 { state.withLockedValue { $0.generation } }

    /// Moves whenever an account was made, changed or deleted, here or (through the bus) on
    /// another instance: the console's lists of people and its count of sign-ups are kept at it.
    package var accountsVersion: Int { state.withLockedValue { $0.accounts } }

    /// Keeps what a read of a session returned; `cookieHash` when it is a browser session found
    /// by its cookie.
    package func remember(session: UUID, expiresAt: Date, user: User, cookieHash: String? = nil, readAt generation: UInt64, now: Date) {
        guard let values = try? UserValues(user) else { return }
        state.withLockedValue { state in
            guard state.generation == generation else { return }
            if state.entries.count >= capacity {
                state.entries = state.entries.filter { now.timeIntervalSince($0.value.storedAt) < lifetime }
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
                state.webSessions = state.webSessions.filter { state.entries[$0.value] != nil }
            }
            state.entries[session] = Entry(userID: values.id, sessionExpiresAt: expiresAt, storedAt: now, user: values)
            if let cookieHash { state.webSessions[cookieHash] = session }
        }
    }

    /// Drops what `change` makes stale here, now, and tells the other instances.
    package func forget(_ change: Change, announcingOn events: any EventBus) async {
        apply(change)
        await events.publish(change.message, to: Self.topic)
    }

    /// Drops what `change` makes stale in this process only.
    package func apply(_ change: Change) {
        switch change {
        case .session: deviceLists.applyForgettingEveryone()
        case .user(let id), .devices(let id): deviceLists.apply(forgetting: id)
        case .created: return state.withLockedValue { $0.accounts &+= 1 }
        }
        if case .devices = change { return }
        state.withLockedValue { state in
            state.generation &+= 1
            switch change {
            case .session(let id): state.entries[id] = nil
            case .user(let id):
                state.entries = state.entries.filter { $0.value.userID != id }
                state.accounts &+= 1
            case .devices, .created: break
            }
            // A cookie whose session is gone would only lead to a miss; dropped so they cannot pile up.
            state.webSessions = state.webSessions.filter { state.entries[$0.value] != nil }
        }
    }

    package var count: Int { state.withLockedValue { $0.entries.count } }
}


extension Application {
    /// Calls `handle` with every account that changed (nickname, picture, role, language, password)
    /// or went, on any instance: for features that keep what shows a person (a name in a kept
    /// answer). The one place that reads `SessionCache`'s announcements for them.
    package func followAccountChanges(_ handle: @escaping @Sendable (Application, UUID) async -> Void) {
        follow(SessionCache.topic) { app, message in
            if case .user(let id) = SessionCache.Change(message: message) { await handle(app, id) }
        }
    }
}
