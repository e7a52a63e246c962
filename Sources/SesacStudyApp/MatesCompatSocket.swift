import Accounts
import Fluent
import Mates
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import Notifications
import Platform
import SocketIO
import Vapor

/// The 새싹 스터디 apps' Socket.IO chat at `/socket.io/` (default namespace): the app emits
/// `changesocketid` with its uid once connected, and from then on this socket gets a `chat` event
/// (the `SesacChat` object) for every line written to that person — by an app or on the web pages,
/// on any instance (the lines come through the `EventBus`), from the moment it is bound. Never the
/// sender's own lines (the apps add those from the HTTP answer), and never a line written before
/// the socket was bound: history is what the app fetches when the chat opens (`GET /v1/chat/…`).
///
/// The apps send no credentials of their own on the socket, and search results show everyone's
/// uid, so knowing a uid must not be enough to read that person's chat. A uid binds by what the
/// phone holds:
/// - the binding cookie (`SesacSocketBinding`) that every `/v1` answer sets and the apps' socket
///   library sends back on the handshake: from any network, for as long as it is valid;
/// - its ID token, as an `idtoken` header or in the CONNECT payload (`{"idtoken": "…"}`);
/// - a uid that has been handed its cookie (`MatesAppUser.socketCookieHandedAt`: its phone holds
///   one) binds by nothing else: a socket without it is refused (`cookie_required`), neither bound
///   by network nor left waiting. Forty students behind one school address are forty cookies, and
///   a classmate who knows a uid holds none of them;
/// - only a uid never handed its cookie (its calls served so far by an instance of an earlier
///   version, during an upgrade: every call now notes the cookie before its network) binds, without either, from the network (`ClientNetwork`: the IPv4 address, or the IPv6 /64) of its
///   *latest* `/v1` call of the last day — never from a network it merely used earlier (a café it
///   has left), never from a browser (`Sec-Fetch-*`), and never when the server sits behind a
///   proxy it does not trust (`UntrustedForwarding`: every phone would be the proxy's address);
/// - otherwise the socket **waits**: it is told so (`bind_pending`, an event the apps ignore), the
///   refusal is logged and counted (`whatweeat_sesac_socket_binds_total{outcome}`). The uid's next
///   `/v1` call hands its phone the cookie, so that call lets the waiting socket go (the phone's
///   socket binds by the cookie when it connects again); it binds the socket only if the uid still
///   holds no cookie then. A waiting socket keeps nothing, at most `waitingPerUID` wait for one uid
///   on an instance (the oldest is let go), and none waits longer than `SESAC_SOCKET_WAIT_SECONDS`.
///
/// Binding announces the socket on the uid's topic with its strength (`Announcement`): a cookie or
/// token is strong, a network weak. A strong socket stops forwarding only when another strong one
/// binds later; a weak one stops at any other binding; a strong socket that hears a weak binding
/// announces itself again, and the weak one stops — on every instance, through the `EventBus`.
/// When a uid is first handed its cookie, its sockets bound by network, or waiting, are let go.
/// A bound socket is let go when its account withdraws or is suspended from mates (`SessionEnd`).
struct MatesCompatSocket: SocketIOHandler {
    static let bindEvent = "changesocketid"
    static let chatEvent = "chat"
    /// Told to a socket that waits to be bound (the apps ignore events they do not know).
    static let pendingEvent = "bind_pending"
    /// Sockets that may wait for one uid on one instance; a newer one lets the oldest go.
    static let waitingPerUID = 2
    /// Published on a uid's binding topic when the uid withdrew: its sockets stop.
    static let withdrawnMessage = "withdrawn"
    /// Published on a uid's binding topic when the uid is first handed its binding cookie: its
    /// sockets bound by network, and those waiting, are let go.
    static let cookieHandedMessage = "cookie_handed"

    private let forwarding = NIOLockedValueBox<[String: Task<Void, Never>]>([:])
    private let waiting = WaitingSockets()

    init() {}

    func connected(_ client: SocketIOClient) async {}

    func received(event: String, arguments: [SocketIOValue], from client: SocketIOClient) async -> [SocketIOValue]? {
        guard event == Self.bindEvent, let uid = arguments.first?.string, !uid.isEmpty, uid.utf8.count <= 128 else { return nil }
        let application = client.application
        let service = SesacAppService(database: application.db, application: application)
        switch await authorization(uid: uid, client: client, service: service) {
        case .bound(let account, let outcome, let strong):
            Self.count(outcome)
            waiting.remove(client.id)
            bind(client, uid: uid, account: account, service: service, strong: strong, waitingFor: nil)
        case .waits(let account, let network):
            Self.count("pending")
            application.logger.notice("a chat socket waits to be bound: its network is not the uid's latest (\(client.engineID))")
            await client.emit(Self.pendingEvent, [["uid": .string(uid), "message": "Waiting for this device's next request to the API."]])
            // At most `waitingPerUID` wait for one uid: a newer one lets the oldest go.
            for released in waiting.add(client, uid: uid, limit: Self.waitingPerUID) { await released.disconnect() }
            bind(client, uid: uid, account: account, service: service, strong: false, waitingFor: network)
        case .refused(let outcome):
            Self.count(outcome)
            application.logger.notice("a chat socket was refused the chats of a uid (\(outcome), \(client.engineID))")
            await client.emit(Self.pendingEvent, [["uid": .string(uid), "message": "This socket cannot receive that person's chat."]])
        }
        return nil
    }

    func disconnected(_ client: SocketIOClient) async {
        waiting.remove(client.id)
        forwarding.withLockedValue { $0.removeValue(forKey: client.id) }?.cancel()
    }

    package enum Authorization {
        /// `strong`: by what the phone holds (cookie, token); otherwise by network.
        case bound(account: UUID, outcome: String, strong: Bool)
        case waits(account: UUID, network: String)
        case refused(outcome: String)
    }

    /// Whether this client may read the chats of `uid` now, later, or never.
    private func authorization(uid: String, client: SocketIOClient, service: SesacAppService) async -> Authorization {
        guard let appUser = try? await service.appUser(uid) else { return .refused(outcome: "unknown_uid") }
        if SesacSocketBinding.uid(in: client.headers, key: client.application.keys.socketBinding, now: client.application.matesEnvironment.now()) == uid {
            return .bound(account: appUser.userID, outcome: "cookie", strong: true)
        }
        let token = client.headers.first(name: SesacAppAuthentication.header) ?? client.auth?.object?["idtoken"]?.string
        if let token, let verifier = client.application.firebaseTokens, let identity = try? await verifier.verify(token), identity.uid == uid {
            return .bound(account: appUser.userID, outcome: "token", strong: true)
        }
        // Its phone holds the cookie (and sends it on the socket): nothing else binds this uid.
        if appUser.socketCookieHandedAt != nil { return .refused(outcome: "cookie_required") }
        guard !client.headers.sentByABrowser else { return .refused(outcome: "browser") }
        // Behind a proxy we were not told of, every phone is the proxy's address: no network binds.
        guard !UntrustedForwarding.suspected(headers: client.headers, clientAddress: client.address) else {
            return .refused(outcome: "untrusted_proxy")
        }
        let network = ClientNetwork(address: client.address).key
        if let latest = try? await service.appLatestNetwork(uid: uid), latest == network {
            return .bound(account: appUser.userID, outcome: "latest_network", strong: false)
        }
        return .waits(account: appUser.userID, network: network)
    }

    /// Forwards the lines written to `account` to the client, from the moment it is bound.
    /// `waitingFor` a network: nothing is forwarded (or kept) until the uid calls the API from it
    /// while still holding no cookie; then the (weak) binding is announced and lines flow from then on.
    private func bind(_ client: SocketIOClient, uid: String, account: UUID, service: SesacAppService, strong: Bool,
                      waitingFor network: String?) {
        let events = client.application.events
        let sightings = network.map { _ in events.subscribe(to: SesacAppService.appSightingTopic(uid)) }
        let bindings = events.subscribe(to: Self.bindingTopic(uid))
        let lines = events.subscribe(to: MatesService.personChatTopic(account))
        let ends = events.subscribe(to: SessionEnd.topic)
        let socketID = client.id
        // How long it may wait to be bound (`SESAC_SOCKET_WAIT_SECONDS`).
        let longestWait = UInt64(client.application.settings.firebase.socketWaitSeconds) * 1_000_000_000
        let waiting = waiting
        let task = Task {
            let state = BindingState(bound: network == nil)
            let announcement = Announcement(socketID: socketID, kind: strong ? .strong : .weak)
            if network == nil { await events.publish(announcement.message, to: Self.bindingTopic(uid)) }
            let letGo: Bool = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for await message in bindings {
                        // The uid withdrew: let go.
                        if message == Self.withdrawnMessage { return true }
                        // The phone now holds its cookie: a socket by network (or waiting) is let go.
                        if message == Self.cookieHandedMessage {
                            if strong { continue }
                            Self.count("cookie_required")
                            return true
                        }
                        guard state.isBound, let other = Announcement(message: message), other.socketID != socketID else { continue }
                        if !strong { return false }  // a weak binding yields to any other
                        switch other.kind {
                        case .strong: return false  // a later strong binding: this one stops
                        case .strongAgain: continue  // an earlier strong one that has not yet heard of this one
                        case .weak:
                            // A socket bound by network while this one holds the cookie: it stops on hearing this.
                            await events.publish(Announcement(socketID: socketID, kind: .strongAgain).message, to: Self.bindingTopic(uid))
                        }
                    }
                    return false
                }
                group.addTask {
                    // The account withdrew, or was suspended from mates: the socket is let go.
                    for await message in ends {
                        guard let end = SessionEnd(message: message) else { continue }
                        switch end {
                        case .account(let id) where id == account: return true
                        case .feature(MatesService.socketFeature, let id) where id == account: return true
                        default: continue
                        }
                    }
                    return false
                }
                if let sightings, let network {
                    group.addTask {
                        for await seen in sightings where seen == network {
                            // The call that announced this sighting handed the phone its cookie
                            // (noted before the sighting): the phone's socket binds by that, this
                            // one is let go. Only a uid that still holds none binds by the call.
                            guard let appUser = try? await service.appUser(uid), appUser.socketCookieHandedAt == nil else {
                                Self.count("cookie_required")
                                return true
                            }
                            Self.count("confirmed")
                            state.confirm()
                            waiting.remove(socketID)
                            await events.publish(announcement.message, to: Self.bindingTopic(uid))
                            // Keep listening (`for await`) so the group waits for the other tasks.
                            for await _ in sightings {}
                            return false
                        }
                        return false
                    }
                    group.addTask {
                        // Waiting has an end: a socket nobody confirmed is let go. A confirmed one
                        // stays until the group ends (the first task to return ends it).
                        try? await Task.sleep(nanoseconds: longestWait)
                        if !Task.isCancelled && !state.isBound { return true }
                        while !Task.isCancelled { try? await Task.sleep(nanoseconds: 3_600_000_000_000) }
                        return false
                    }
                }
                group.addTask {
                    var uids: [UUID: String] = [:]
                    for await text in lines {
                        // Nothing is kept for a socket that waits: those lines were written before
                        // its owner was seen on its network (the app fetches history on opening).
                        guard state.isBound else { continue }
                        guard let line = try? JSONDecoder().decode(PersonChatEvent.self, from: Data(text.utf8)), line.to == account else { continue }
                        if uids[line.from] == nil { uids[line.from] = (try? await service.appUIDs(of: [line.from]))?[line.from] }
                        let chat = SesacChat(id: line.id, kind: line.kind, text: line.text, pin: line.pin,
                                             createdAt: Date(timeIntervalSince1970: line.createdAt),
                                             from: uids[line.from] ?? line.from.uuidString.lowercased(), to: uid)
                        guard let value = try? SocketIOValue(encoding: chat) else { continue }
                        await client.emit(Self.chatEvent, [value])
                        // Delivered to an open chat (the apps connect on their chat screen): read,
                        // so neither the inbox nor a push tells of it again (issue 60).
                        if let match = try? await service.mates.match(line.match, for: account) {
                            _ = try? await service.mates.markRead(match, upTo: line.id, by: account)
                        }
                    }
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            waiting.remove(socketID)
            if letGo { await client.disconnect() }
        }
        forwarding.withLockedValue { $0.updateValue(task, forKey: client.id) }?.cancel()
    }

    static func bindingTopic(_ uid: String) -> String { "mates.sesac.socket.\(uid)" }

    static func count(_ outcome: String) {
        Counter(label: "whatweeat_sesac_socket_binds_total", dimensions: [("outcome", outcome)]).increment()
    }
}

/// A socket's binding as announced on its uid's topic: `strong:<socket id>` (by cookie or token),
/// `weak:<socket id>` (by network), `strong-again:<socket id>` (a strong socket that heard a weak
/// binding, saying it is still there). A bare socket id (an instance of an earlier version, during
/// an upgrade) is a strong binding, as every binding was then.
struct Announcement: Equatable {
    enum Kind: String { case strong, weak, strongAgain = "strong-again" }

    let socketID: String
    let kind: Kind

    init(socketID: String, kind: Kind) {
        self.socketID = socketID
        self.kind = kind
    }

    init?(message: String) {
        guard message != MatesCompatSocket.withdrawnMessage, message != MatesCompatSocket.cookieHandedMessage, !message.isEmpty else { return nil }
        let parts = message.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2, let kind = Kind(rawValue: String(parts[0])) {
            self.init(socketID: String(parts[1]), kind: kind)
        } else {
            self.init(socketID: message, kind: .strong)
        }
    }

    var message: String { kind.rawValue + ":" + socketID }
}

/// Whether a socket is bound yet.
private final class BindingState: Sendable {
    private let bound: NIOLockedValueBox<Bool>

    init(bound: Bool) {
        self.bound = NIOLockedValueBox(bound)
    }

    var isBound: Bool { bound.withLockedValue { $0 } }

    func confirm() { bound.withLockedValue { $0 = true } }
}

/// The sockets of this instance that wait to be bound, per uid, oldest first.
private final class WaitingSockets: Sendable {
    private let byUID = NIOLockedValueBox<[String: [SocketIOClient]]>([:])

    /// Adds `client` for `uid`; returns the oldest ones past `limit`, to let go.
    func add(_ client: SocketIOClient, uid: String, limit: Int) -> [SocketIOClient] {
        byUID.withLockedValue { all in
            var clients = (all[uid] ?? []).filter { $0.id != client.id }
            clients.append(client)
            let released = Array(clients.dropLast(limit))
            all[uid] = Array(clients.suffix(limit))
            return released
        }
    }

    func remove(_ id: String) {
        byUID.withLockedValue { all in
            for (uid, clients) in all where clients.contains(where: { $0.id == id }) {
                let rest = clients.filter { $0.id != id }
                all[uid] = rest.isEmpty ? nil : rest
            }
        }
    }

    var count: Int { byUID.withLockedValue { $0.values.reduce(0) { $0 + $1.count } } }
}
