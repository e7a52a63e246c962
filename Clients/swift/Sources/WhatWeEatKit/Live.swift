import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WhatWeEatAPI

/// One open WebSocket: the text frames the server sends, and sending text back.
///
/// Frames wait for the reader in a buffer of at most `liveBufferLimit`; an app that stops reading
/// keeps the newest (a chat's older lines are in its history; a count's newest is the one that
/// matters), so a socket left open in the background cannot fill memory.
public protocol LiveSocket: Sendable {
    /// Every text frame, until the socket closes (the stream then ends, or throws what broke it).
    var texts: AsyncThrowingStream<String, any Error> { get }
    func send(_ text: String) async throws
    func close() async
}

/// Opens live sockets. `URLSessionLiveSockets` on Apple platforms; on Linux, where
/// FoundationNetworking's WebSockets need a libcurl built with them (Debian's is not),
/// `WebSocketKitLiveSockets` from `WhatWeEatKitAsyncHTTPClient`.
public protocol LiveSocketConnector: Sendable {
    func connect(to url: URL, headers: [String: String]) async throws -> any LiveSocket
}

/// Frames (and events) a live room keeps for a reader that has not read them yet.
public let liveBufferLimit = 4_096

/// Live sockets over `URLSessionWebSocketTask`.
public struct URLSessionLiveSockets: LiveSocketConnector {
    public let session: URLSession

    public init(session: URLSession = .shared) { self.session = session }

    public func connect(to url: URL, headers: [String: String]) async throws -> any LiveSocket {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let task = session.webSocketTask(with: request)
        task.resume()
        return URLSessionLiveSocket(task: task)
    }
}

final class URLSessionLiveSocket: LiveSocket, @unchecked Sendable {
    let task: URLSessionWebSocketTask
    let texts: AsyncThrowingStream<String, any Error>

    init(task: URLSessionWebSocketTask) {
        self.task = task
        texts = AsyncThrowingStream(bufferingPolicy: .bufferingNewest(liveBufferLimit)) { continuation in
            let reader = Task {
                do {
                    while !Task.isCancelled {
                        switch try await task.receive() {
                        case .string(let text): continuation.yield(text)
                        case .data(let data): continuation.yield(String(decoding: data, as: UTF8.self))
                        @unknown default: break
                        }
                    }
                    continuation.finish()
                } catch {
                    // A close from either side ends the stream; anything else is the failure.
                    if task.closeCode != .invalid { continuation.finish() } else { continuation.finish(throwing: error) }
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
    }

    func send(_ text: String) async throws { try await task.send(.string(text)) }

    func close() async { task.cancel(with: .normalClosure, reason: nil) }
}

// MARK: Typed events

/// What a menu-game group's room says (`GET /api/v1/menu-game/groups/{pin}/live`).
public enum GroupRoomEvent: Sendable, Equatable {
    /// At once on connecting.
    case state(submissionCount: Int, isHost: Bool, isClosed: Bool)
    /// Someone submitted or took back their answers.
    case submissionCount(Int)
    /// The host closed the group: its results are final.
    case closed
}

/// A menu-game group's room as it is now (`WhatWeEat.groupRoomUpdates`).
public struct GroupRoomUpdate: Sendable, Equatable {
    public let submissionCount: Int
    /// Whether this installation's device token opened the group.
    public let isHost: Bool
    /// The host closed the group: its results are final, and no update follows.
    public let isClosed: Bool
    /// Everyone in the room, in the order they came (the host first), and whether each answered.
    public let members: [Components.Schemas.GroupMember]
    /// This installation's entry in `members`; nil while it is not in the room.
    public let you: String?

    /// This installation's own entry, when it is in the room.
    public var me: Components.Schemas.GroupMember? { members.first { $0.id == you } }
}

/// Turns the room's messages into whole updates: remembers what the last one said, and reads the
/// room when a message leaves part of it out.
actor GroupRoomFollower {
    private let readRoom: @Sendable () async throws -> Components.Schemas.GroupStatus
    private var last: GroupRoomUpdate?

    init(readRoom: @escaping @Sendable () async throws -> Components.Schemas.GroupStatus) {
        self.readRoom = readRoom
    }

    func update(with text: String) async -> GroupRoomUpdate? {
        guard let object = LiveJSON.object(text) else { return nil }
        let members = LiveJSON.member("members", of: text, as: [Components.Schemas.GroupMember].self)
        switch object["type"] as? String {
        case "state":
            last = GroupRoomUpdate(submissionCount: object["submissionCount"] as? Int ?? 0, isHost: object["isHost"] as? Bool ?? false,
                                   isClosed: object["isClosed"] as? Bool ?? false, members: members ?? [], you: object["you"] as? String)
        case "submissionCount":
            var count = object["submissionCount"] as? Int ?? last?.submissionCount ?? 0
            var (members, you) = (members, last?.you)
            // A room too big for one message, or a newcomer who may be this installation: read it.
            // Should the read fail, the update keeps the people it knew.
            if members == nil || you == nil, let status = try? await readRoom() {
                (count, members, you) = (status.submissionCount, status.members, status.you)
            }
            last = GroupRoomUpdate(submissionCount: count, isHost: last?.isHost ?? false, isClosed: false,
                                   members: members ?? last?.members ?? [], you: you)
        case "closed":
            last = GroupRoomUpdate(submissionCount: last?.submissionCount ?? 0, isHost: last?.isHost ?? false, isClosed: true,
                                   members: last?.members ?? [], you: last?.you)
        default:
            return nil
        }
        return last
    }
}

/// The inbox's live count and what arrives (`GET /api/v1/notifications/live`).
public struct InboxEvent: Sendable {
    public let unreadCount: Int
    /// The notification that just arrived; nil when the count changed because some were read.
    public let notification: Components.Schemas.Notification?
}

/// What a match's chat socket says (`GET /api/v1/mates/chat/{match}/live`).
public enum ChatEvent: Sendable {
    case hello(unreadCount: Int, open: Bool)
    /// A line from either of the two (`clientId` is the sender's own id for it).
    case message(Components.Schemas.MatesChatMessage, clientId: String?)
    /// My line `clientId` was stored.
    case ack(clientId: String, message: Components.Schemas.MatesChatMessage)
    /// My line `clientId` was refused.
    case refused(clientId: String?, WhatWeEatError)
    case read(userId: String, readAt: Date?)
    case ended(reason: String, by: String?)
    /// An event this version of the client does not know, as sent.
    case other(String)
}

/// A match's chat, open: its events, and sending lines.
public struct MatesChat: Sendable {
    public let events: AsyncThrowingStream<ChatEvent, any Error>
    let socket: any LiveSocket

    /// Sends a line; the `ack` (or `refused`) with the same `clientId` follows on `events`.
    @discardableResult
    public func send(_ text: String, clientId: String = UUID().uuidString) async throws -> String {
        try await socket.send(LiveJSON.encode(["type": "send", "text": text, "clientId": clientId]))
        return clientId
    }

    /// Moves my read marker (to the newest line without `messageId`).
    public func markRead(_ messageId: String? = nil) async throws {
        var read = ["type": "read"]
        read["messageId"] = messageId
        try await socket.send(LiveJSON.encode(read))
    }

    public func close() async { await socket.close() }
}

enum LiveJSON {
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    static func encode(_ object: [String: String]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// A member of a JSON object, decoded as `T` (the generated schemas are `Decodable`).
    static func member<T: Decodable>(_ name: String, of text: String, as type: T.Type) -> T? {
        guard let object = object(text), let member = object[name],
              let data = try? JSONSerialization.data(withJSONObject: member, options: [.fragmentsAllowed]) else { return nil }
        return try? decoder.decode(T.self, from: data)
    }
}
