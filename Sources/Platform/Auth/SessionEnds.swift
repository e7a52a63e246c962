package import Vapor

/// A session, or every session of an account, has ended: sign-out, a refresh token's reuse, a
/// password change, withdrawal, a suspension. Whatever ends one announces it (`events.announceSessionEnd`);
/// every instance then closes the live sockets opened under it (`OpenSockets`, code 4401) and runs
/// what features registered (`followSessionEnds`: the 새싹 apps' chat drops the account's bindings).
/// A socket also checks its session before each line it sends, so a lost announcement costs at
/// most the lines it would have heard.
package enum SessionEnd: Equatable, Sendable {
    /// One session (an API refresh-token family or a browser session).
    case session(UUID)
    /// Every session of the account (withdrawal, a password change).
    case account(UUID)
    /// The account may no longer use one feature (a mates suspension): its sockets of that
    /// feature (the `feature` label of `liveSocket`) close; the rest stay.
    case feature(String, account: UUID)

    package static let topic = "platform.session_ends"

    package var message: String {
        switch self {
        case .session(let id): return "session:" + id.uuidString
        case .account(let id): return "account:" + id.uuidString
        case .feature(let feature, let id): return "feature:" + id.uuidString + ":" + feature
        }
    }

    package init?(message: String) {
        let parts = message.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count >= 2, let id = UUID(uuidString: parts[1]) else { return nil }
        switch (parts[0], parts.count) {
        case ("session", 2): self = .session(id)
        case ("account", 2): self = .account(id)
        case ("feature", 3): self = .feature(parts[2], account: id)
        default: return nil
        }
    }

    /// Whether a socket of `feature` opened under `owner` ends with this.
    package func ends(owner: SignedInAccount, feature: String) -> Bool {
        switch self {
        case .session(let id): return owner.session == id
        case .account(let id): return owner.id == id
        case .feature(let ended, let id): return owner.id == id && ended == feature
        }
    }

    /// The account this ends, when it names one (a session alone does not).
    package var account: UUID? {
        switch self {
        case .session: return nil
        case .account(let id), .feature(_, let id): return id
        }
    }
}

extension EventBus {
    /// Tells every instance (this one included) that `end` happened.
    package func announceSessionEnd(_ end: SessionEnd) async {
        await publish(end.message, to: SessionEnd.topic)
    }
}

extension Application {

    /// Calls `handle` on this instance for every session end announced on any instance.
    func followSessionEnds(_ handle: @escaping @Sendable (Application, SessionEnd) async -> Void) {
        follow(SessionEnd.topic) { app, message in
            if let end = SessionEnd(message: message) { await handle(app, end) }
        }
    }

    /// Closes this instance's live sockets of every ended session: installed once, at configure.
    package func closeSocketsWhenSessionsEnd() {
        followSessionEnds { app, end in
            let closed = await app.openSockets.close(end)
            if closed > 0 { app.logger.debug("closed \(closed) live socket(s) of an ended session") }
        }
    }
}
