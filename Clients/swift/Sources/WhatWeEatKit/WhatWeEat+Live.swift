import Foundation
import WhatWeEatAPI

extension WhatWeEat {
    /// A menu-game group's room: the state at once, then every submission count and the close.
    /// `isHost` is true when this installation's device token opened the group.
    public func groupRoom(pin: String) async throws -> AsyncThrowingStream<GroupRoomEvent, any Error> {
        return Self.events(of: try await groupRoomSocket(pin: pin)) { text in
            guard let object = LiveJSON.object(text) else { return nil }
            switch object["type"] as? String {
            case "state":
                return .state(submissionCount: object["submissionCount"] as? Int ?? 0, isHost: object["isHost"] as? Bool ?? false,
                              isClosed: object["isClosed"] as? Bool ?? false)
            case "submissionCount": return .submissionCount(object["submissionCount"] as? Int ?? 0)
            case "closed": return .closed
            default: return nil
            }
        }
    }

    /// A menu-game group's room, each update whole: who is in it and who has answered (the state
    /// at once, then after every join, rename, answer or withdrawal), and the close. A big room's
    /// change comes without its people, and this installation's own entry (`you`) is not in the
    /// changes the room hears: the stream reads the room with `groupStatus` then.
    public func groupRoomUpdates(pin: String) async throws -> AsyncThrowingStream<GroupRoomUpdate, any Error> {
        let api = api, deviceToken = deviceToken
        let follower = GroupRoomFollower {
            try await api.groupStatus(path: .init(pin: pin), headers: .init(xDeviceToken: deviceToken)).ok.body.json
        }
        return Self.events(of: try await groupRoomSocket(pin: pin)) { text in await follower.update(with: text) }
    }

    private func groupRoomSocket(pin: String) async throws -> any LiveSocket {
        var components = try liveURL("/api/v1/menu-game/groups/\(pin)/live")
        components.queryItems = [URLQueryItem(name: "token", value: deviceToken)]
        return try await liveSockets.connect(to: try Self.url(components), headers: ["Accept-Language": language])
    }

    /// The signed-in person's inbox: the unread count at once, then each notification as it
    /// arrives (on any server instance) and the count when some are read.
    public func inbox() async throws -> AsyncThrowingStream<InboxEvent, any Error> {
        let socket = try await liveSockets.connect(to: try Self.url(try liveURL("/api/v1/notifications/live")), headers: try await signedInHeaders())
        return Self.events(of: socket) { text in
            guard let count = LiveJSON.object(text)?["unreadCount"] as? Int else { return nil }
            return InboxEvent(unreadCount: count, notification: LiveJSON.member("notification", of: text, as: Components.Schemas.Notification.self))
        }
    }

    /// A match's chat, for its two people: its events, and sending lines on the same socket.
    public func chat(match: String) async throws -> MatesChat {
        let socket = try await liveSockets.connect(to: try Self.url(try liveURL("/api/v1/mates/chat/\(match)/live")), headers: try await signedInHeaders())
        let events: AsyncThrowingStream<ChatEvent, any Error> = Self.events(of: socket) { text in
            guard let object = LiveJSON.object(text) else { return nil }
            let clientId = object["clientId"] as? String
            switch object["type"] as? String {
            case "hello":
                return .hello(unreadCount: object["unreadCount"] as? Int ?? 0, open: object["open"] as? Bool ?? false)
            case "message":
                guard let message = LiveJSON.member("message", of: text, as: Components.Schemas.MatesChatMessage.self) else { return .other(text) }
                return .message(message, clientId: clientId)
            case "ack":
                guard let clientId, let message = LiveJSON.member("message", of: text, as: Components.Schemas.MatesChatMessage.self) else { return .other(text) }
                return .ack(clientId: clientId, message: message)
            case "error":
                let detail = object["error"] as? [String: Any]
                return .refused(clientId: clientId, WhatWeEatError(status: 0, code: detail?["code"] as? String ?? "error",
                                                                    message: detail?["message"] as? String ?? ""))
            case "read":
                let readAt = (object["readAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) }
                return .read(userId: object["userId"] as? String ?? "", readAt: readAt)
            case "ended":
                return .ended(reason: object["reason"] as? String ?? "", by: object["by"] as? String)
            default:
                return .other(text)
            }
        }
        return MatesChat(events: events, socket: socket)
    }

    // MARK: Plumbing

    private func liveURL(_ path: String) throws -> URLComponents {
        guard var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false) else {
            throw WhatWeEatError(status: 0, code: "invalid_server_url", message: serverURL.absoluteString)
        }
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        components.path = components.path.hasSuffix("/") ? String(components.path.dropLast()) + path : components.path + path
        return components
    }

    private static func url(_ components: URLComponents) throws -> URL {
        guard let url = components.url else { throw WhatWeEatError(status: 0, code: "invalid_server_url", message: components.description) }
        return url
    }

    private func signedInHeaders() async throws -> [String: String] {
        guard let token = try await tokens.validAccessToken() else {
            throw WhatWeEatError(status: 401, code: "unauthorized", message: "Not signed in.")
        }
        return ["Authorization": "Bearer \(token)", "Accept-Language": language]
    }

    /// The socket's frames as typed events (frames `parse` does not know are dropped); ending the
    /// loop closes the socket.
    static func events<Event: Sendable>(of socket: any LiveSocket, _ parse: @escaping @Sendable (String) async -> Event?)
        -> AsyncThrowingStream<Event, any Error>
    {
        AsyncThrowingStream(bufferingPolicy: .bufferingNewest(liveBufferLimit)) { continuation in
            let reader = Task {
                do {
                    for try await text in socket.texts {
                        if let event = await parse(text) { continuation.yield(event) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in
                reader.cancel()
                Task { await socket.close() }
            }
        }
    }
}
