import Accounts
import Mates
import Metrics
import NIOConcurrencyHelpers
import Notifications
import Platform
import SocketIO
import Vapor

/// The 새싹 스터디 apps' Socket.IO chat at `/socket.io/` (default namespace): the app emits
/// `changesocketid` with its uid once connected, and from then on this socket gets a `chat` event
/// (the `SesacChat` object) for every line written to that person — by an app or on the web pages,
/// on any instance (the lines come through the `EventBus`). Never the sender's own lines: the
/// apps add those from the HTTP answer.
///
/// The latest socket of a uid wins: binding publishes the socket's id on the uid's topic and the
/// uid's earlier sockets, wherever they are, stop forwarding.
///
/// The apps send no credentials on the socket, and search results show everyone's uid, so knowing
/// a uid must not be enough to read that person's chat. A uid binds:
/// - with its ID token, as an `idtoken` header or in the CONNECT payload (`{"idtoken": "…"}`);
/// - from a network (`AppNetwork`: the IPv4 address, or the IPv6 /64) the uid called `/v1` from
///   in the last 24 hours — the chat screen left open past 30 minutes, a phone back on its home
///   Wi-Fi, an IPv6 address the phone rotated for privacy;
/// - otherwise the socket **waits**: it is told so (`bind_pending`, an event the apps ignore), the
///   refusal is logged and counted (`whatweeat_sesac_socket_binds_total{outcome}`), lines for the
///   uid are kept for it (64 at most), and the first `/v1` call the uid makes from the socket's
///   network binds it and hands them over — a phone that moved from Wi-Fi to LTE mid-chat is
///   bound by its next request (sending a line, or the queue poll) from LTE;
/// - never by network from a browser (`Sec-Fetch-*`): a page on the person's phone or network is
///   what borrows their address (pages of other sites are refused before this, by `Origin`).
package struct MatesCompatSocket: SocketIOHandler {
    package static let bindEvent = "changesocketid"
    package static let chatEvent = "chat"
    /// Told to a socket that waits to be bound (the apps ignore events they do not know).
    package static let pendingEvent = "bind_pending"
    /// Lines kept for a socket that waits.
    package static let pendingLines = 64

    private let forwarding = NIOLockedValueBox<[String: Task<Void, Never>]>([:])

    package func connected(_ client: SocketIOClient) async {}

    package func received(event: String, arguments: [SocketIOValue], from client: SocketIOClient) async -> [SocketIOValue]? {
        guard event == Self.bindEvent, let uid = arguments.first?.string, !uid.isEmpty, uid.utf8.count <= 128 else { return nil }
        let application = client.application
        let service = MatesService(database: application.db, application: application)
        switch await authorization(uid: uid, client: client, service: service) {
        case .bound(let account, let outcome):
            Self.count(outcome)
            bind(client, uid: uid, account: account, service: service, waitingFor: nil)
        case .waits(let account, let network):
            Self.count("pending")
            application.logger.notice("a chat socket waits to be bound: its network is not one the uid called from (\(client.engineID))")
            await client.emit(Self.pendingEvent, [["uid": .string(uid), "message": "Waiting for this device's next request to the API."]])
            bind(client, uid: uid, account: account, service: service, waitingFor: network)
        case .refused(let outcome):
            Self.count(outcome)
            application.logger.notice("a chat socket was refused the chats of a uid (\(outcome), \(client.engineID))")
            await client.emit(Self.pendingEvent, [["uid": .string(uid), "message": "This socket cannot receive that person's chat."]])
        }
        return nil
    }

    package func disconnected(_ client: SocketIOClient) async {
        forwarding.withLockedValue { $0.removeValue(forKey: client.id) }?.cancel()
    }

    package enum Authorization {
        case bound(account: UUID, outcome: String)
        case waits(account: UUID, network: String)
        case refused(outcome: String)
    }

    /// Whether this client may read the chats of `uid` now, later, or never.
    private func authorization(uid: String, client: SocketIOClient, service: MatesService) async -> Authorization {
        guard let appUser = try? await service.appUser(uid) else { return .refused(outcome: "unknown_uid") }
        let token = client.headers.first(name: SesacAppAuthentication.header) ?? client.auth?.object?["idtoken"]?.string
        if let token, let verifier = client.application.firebaseTokens, let identity = try? await verifier.verify(token), identity.uid == uid {
            return .bound(account: appUser.userID, outcome: "token")
        }
        guard !client.headers.sentByABrowser else { return .refused(outcome: "browser") }
        if (try? await service.appSocketMayBind(uid: uid, address: client.address)) != nil {
            return .bound(account: appUser.userID, outcome: "known_network")
        }
        return .waits(account: appUser.userID, network: AppNetwork.of(client.address))
    }

    /// Forwards the lines written to `account` to the client. `waitingFor` a network: the lines
    /// are kept, not sent, until the uid calls the API from it; then the binding is announced (the
    /// uid's earlier sockets stop) and what was kept goes first.
    private func bind(_ client: SocketIOClient, uid: String, account: UUID, service: MatesService, waitingFor network: String?) {
        let events = client.application.events
        let sightings = network.map { _ in events.subscribe(to: MatesService.appSightingTopic(uid)) }
        let bindings = events.subscribe(to: Self.bindingTopic(uid))
        let lines = events.subscribe(to: MatesService.personChatTopic(account))
        let socketID = client.id
        let task = Task {
            let state = BindingState(bound: network == nil)
            if network == nil { await events.publish(socketID, to: Self.bindingTopic(uid)) }
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Another socket bound this uid later: this one stops.
                    for await other in bindings where other != socketID && state.isBound { return }
                }
                if let sightings, let network {
                    group.addTask {
                        for await seen in sightings where seen == network {
                            Self.count("confirmed")
                            await events.publish(socketID, to: Self.bindingTopic(uid))
                            for chat in state.confirm() { await client.emit(Self.chatEvent, [chat]) }
                            // Keep listening (`for await`) so the group waits for the other tasks.
                            for await _ in sightings {}
                            return
                        }
                    }
                }
                group.addTask {
                    var uids: [UUID: String] = [:]
                    for await text in lines {
                        guard let line = try? JSONDecoder().decode(PersonChatEvent.self, from: Data(text.utf8)), line.to == account else { continue }
                        if uids[line.from] == nil { uids[line.from] = (try? await service.appUIDs(of: [line.from]))?[line.from] }
                        let chat = SesacChat(id: line.id, kind: line.kind, text: line.text, pin: line.pin,
                                             createdAt: Date(timeIntervalSince1970: line.createdAt),
                                             from: uids[line.from] ?? line.from.uuidString.lowercased(), to: uid)
                        guard let value = try? SocketIOValue(encoding: chat) else { continue }
                        if state.keepIfWaiting(value) { continue }
                        await client.emit(Self.chatEvent, [value])
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
        forwarding.withLockedValue { $0.updateValue(task, forKey: client.id) }?.cancel()
    }

    package static func bindingTopic(_ uid: String) -> String { "mates.sesac.socket.\(uid)" }

    package static func count(_ outcome: String) {
        Counter(label: "whatweeat_sesac_socket_binds_total", dimensions: [("outcome", outcome)]).increment()
    }
}

/// Whether a socket is bound yet, and the lines kept for it while it waits.
private final class BindingState: Sendable {
    private let state: NIOLockedValueBox<(bound: Bool, kept: [SocketIOValue])>

    init(bound: Bool) {
        state = NIOLockedValueBox((bound, []))
    }

    var isBound: Bool { state.withLockedValue { $0.bound } }

    /// Keeps `chat` while waiting (the oldest go past `pendingLines`); false once bound.
    func keepIfWaiting(_ chat: SocketIOValue) -> Bool {
        state.withLockedValue { state in
            guard !state.bound else { return false }
            state.kept.append(chat)
            if state.kept.count > MatesCompatSocket.pendingLines { state.kept.removeFirst() }
            return true
        }
    }

    /// Binds; what was kept, to send first.
    func confirm() -> [SocketIOValue] {
        state.withLockedValue { state in
            state.bound = true
            defer { state.kept = [] }
            return state.kept
        }
    }
}
