import NIOConcurrencyHelpers
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
/// The apps send no credentials on the socket. So that knowing a uid (which search results show)
/// is not enough to read someone's chat, a uid binds with its ID token as an `idtoken` header or
/// in the CONNECT payload (`{"idtoken": "…"}`) for clients that can, or else only from the address
/// it called the API from in the last 30 minutes (every app opens the chat over HTTP first) — and
/// never by address from a browser: a page on the person's phone or network has their address
/// (pages of other sites are refused before this, by `Origin`; `Sec-Fetch-*` marks any browser).
struct MatesCompatSocket: SocketIOHandler {
    static let bindEvent = "changesocketid"
    static let chatEvent = "chat"

    private let forwarding = NIOLockedValueBox<[String: Task<Void, Never>]>([:])

    func connected(_ client: SocketIOClient) async {}

    func received(event: String, arguments: [SocketIOValue], from client: SocketIOClient) async -> [SocketIOValue]? {
        guard event == Self.bindEvent, let uid = arguments.first?.string, !uid.isEmpty, uid.utf8.count <= 128 else { return nil }
        let application = client.application
        let service = MatesService(database: application.db, application: application)
        guard let account = await authorizedAccount(uid: uid, client: client, service: service) else {
            application.logger.notice("a socket asked for the chats of a uid it could not show it owns")
            return nil
        }
        bind(client, uid: uid, account: account, service: service)
        return nil
    }

    func disconnected(_ client: SocketIOClient) async {
        forwarding.withLockedValue { $0.removeValue(forKey: client.id) }?.cancel()
    }

    /// The account of `uid` when this client may read its chats.
    private func authorizedAccount(uid: String, client: SocketIOClient, service: MatesService) async -> UUID? {
        let token = client.headers.first(name: SesacAppAuthentication.header) ?? client.auth?.object?["idtoken"]?.string
        if let token, let verifier = client.application.firebaseTokens, let identity = try? await verifier.verify(token), identity.uid == uid {
            return try? await service.appUser(uid)?.userID
        }
        guard !client.headers.sentByABrowser else { return nil }
        return try? await service.appSocketMayBind(uid: uid, address: client.address)?.userID
    }

    private func bind(_ client: SocketIOClient, uid: String, account: UUID, service: MatesService) {
        let events = client.application.events
        let bindings = events.subscribe(to: Self.bindingTopic(uid))
        let lines = events.subscribe(to: MatesService.personChatTopic(account))
        let socketID = client.id
        let task = Task {
            await events.publish(socketID, to: Self.bindingTopic(uid))
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Another socket bound this uid later: this one stops.
                    for await other in bindings where other != socketID { return }
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
                        await client.emit(Self.chatEvent, [value])
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
        forwarding.withLockedValue { $0.updateValue(task, forKey: client.id) }?.cancel()
    }

    static func bindingTopic(_ uid: String) -> String { "mates.sesac.socket.\(uid)" }
}
