import NIOConcurrencyHelpers
public import Vapor

/// Publishes small text messages (JSON) to everyone subscribed to a topic — the live parts of
/// the app (game rooms, chat, notifications) are fed by this.
///
/// `InProcessEventBus` serves one process (SQLite); `PostgresEventBus` carries events between all
/// the processes that share a PostgreSQL database (`LISTEN/NOTIFY`).
public protocol EventBus: Sendable {
    func publish(_ message: String, to topic: String) async
    /// Messages published to `topic` from now on; ends when the caller stops iterating.
    func subscribe(to topic: String) -> AsyncStream<String>
    /// How many listeners `topic` has in this process (tests, metrics).
    func subscriberCount(of topic: String) -> Int
}

public final class InProcessEventBus: EventBus {
    private let subscribers = NIOLockedValueBox<[String: [UUID: AsyncStream<String>.Continuation]]>([:])

    public init() {}

    public func publish(_ message: String, to topic: String) async {
        let targets = subscribers.withLockedValue { Array(($0[topic] ?? [:]).values) }
        for continuation in targets { continuation.yield(message) }
    }

    public func subscribe(to topic: String) -> AsyncStream<String> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLockedValue { all in
                all[topic]?[id] = nil
                if all[topic]?.isEmpty == true { all[topic] = nil }
            }
        }
        subscribers.withLockedValue { $0[topic, default: [:]][id] = continuation }
        return stream
    }

    public func subscriberCount(of topic: String) -> Int {
        subscribers.withLockedValue { $0[topic]?.count ?? 0 }
    }
}

extension Application {
    private struct EventBusKey: StorageKey { typealias Value = any EventBus }

    public var events: any EventBus {
        get { configured(EventBusKey.self) }
        set { storage[EventBusKey.self] = newValue }
    }
}
