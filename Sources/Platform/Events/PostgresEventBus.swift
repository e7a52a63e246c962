import Metrics
public import FluentPostgresDriver
import NIOConcurrencyHelpers
import PostgresNIO
package import Vapor

/// The event bus for several server processes that share one PostgreSQL database: events travel
/// through `NOTIFY` on one channel, and every process `LISTEN`s on it.
///
/// Each process keeps one dedicated connection (outside the query pool) that listens and also
/// sends the `NOTIFY`s. A process delivers an event to its own subscribers only when it hears it
/// back from the database, so every process sees the events of a topic in the same order. If the
/// connection drops, it reconnects with backoff; events published meanwhile reach this process's
/// own subscribers directly (the other processes miss them, and their clients' polling catches up).
public final class PostgresEventBus: EventBus {
    /// One channel for every topic; the payload names the topic.
    package static let channel = "whatweeat_events"
    /// PostgreSQL refuses NOTIFY payloads of 8000 bytes or more.
    static let maxPayloadBytes = 7900

    package struct Envelope: Codable {
        package let topic: String
        package let message: String
        /// When it was published (seconds since 1970), for the delivery-lag histogram; absent in
        /// the envelopes of an older version.
        var sentAt: Double?
    }

    private let local = InProcessEventBus()
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let connection = NIOLockedValueBox<PostgresConnection?>(nil)
    private let listener = NIOLockedValueBox<Task<Void, Never>?>(nil)

    private init(configuration: PostgresConnection.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Connects and starts listening, and returns once `LISTEN` is in place, so no event published
    /// after start-up is missed. When the database cannot be reached yet, it returns at once and
    /// keeps trying in the background (the server starts; `/readyz` reports the database).
    public static func start(url: String, logger: Logger) async throws -> PostgresEventBus {
        let bus = PostgresEventBus(configuration: try SQLPostgresConfiguration(url: url).coreConfiguration, logger: logger)
        let firstAttempt = await withCheckedContinuation { (outcome: CheckedContinuation<(any Error)?, Never>) in
            bus.listener.withLockedValue { $0 = Task { await bus.listen(reportingFirstAttemptTo: outcome) } }
        }
        if let firstAttempt {
            logger.warning("event listener cannot reach the database yet; retrying in the background",
                           metadata: ["error": "\(String(reflecting: firstAttempt))"])
        }
        return bus
    }

    public func publish(_ message: String, to topic: String) async {
        let payload = String(decoding: (try? JSONEncoder().encode(Envelope(topic: topic, message: message, sentAt: WallClock.now().timeIntervalSince1970))) ?? Data(), as: UTF8.self)
        guard payload.utf8.count <= Self.maxPayloadBytes, let connection = connection.withLockedValue({ $0 }) else {
            if payload.utf8.count > Self.maxPayloadBytes {
                logger.warning("event too large for NOTIFY; delivered to this process only", metadata: ["topic": "\(topic)"])
            }
            await local.publish(message, to: topic)
            return
        }
        do {
            try await connection.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: logger)
        } catch {
            logger.warning("NOTIFY failed; delivered to this process only", metadata: ["error": "\(String(reflecting: error))"])
            await local.publish(message, to: topic)
        }
    }

    public func subscribe(to topic: String) -> AsyncStream<String> {
        local.subscribe(to: topic)
    }

    public func subscriberCount(of topic: String) -> Int {
        local.subscriberCount(of: topic)
    }

    /// Stops listening and closes the connection (application shutdown).
    public func shutdown() async {
        let task = listener.withLockedValue { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
    }

    /// Listens until cancelled, reconnecting after failures. The first attempt's outcome is
    /// reported to `start`: nil once listening, or the error that kept it from listening.
    private func listen(reportingFirstAttemptTo firstAttempt: CheckedContinuation<(any Error)?, Never>) async {
        let report = NIOLockedValueBox<CheckedContinuation<(any Error)?, Never>?>(firstAttempt)
        func reportFirstAttempt(_ outcome: (any Error)?) {
            report.withLockedValue { $0?.resume(returning: outcome); $0 = nil }
        }
        var delay: Duration = .milliseconds(100)
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                self.connection.withLockedValue { $0 = connection }
                defer {
                    self.connection.withLockedValue { $0 = nil }
                    Task { try? await connection.close() }
                }
                try await connection.listen(on: Self.channel) { notifications in
                    reportFirstAttempt(nil)
                    delay = .milliseconds(100)
                    for try await notification in notifications {
                        await deliver(notification.payload)
                    }
                }
            } catch {
                let startingUp = report.withLockedValue { $0 != nil }
                if !startingUp && !Task.isCancelled {  // start() logs the first failure itself
                    logger.warning("event listener lost its connection; reconnecting", metadata: ["error": "\(String(reflecting: error))"])
                }
                reportFirstAttempt(error)
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
        reportFirstAttempt(CancellationError())
    }

    private func deliver(_ payload: String) async {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(payload.utf8)) else {
            logger.debug("ignoring a notification that is not ours")
            return
        }
        if let sentAt = envelope.sentAt {
            // Clocks of two machines may disagree a little: a negative lag counts as none.
            Timer(label: "whatweeat_event_bus_delivery_seconds").recordSeconds(max(0, WallClock.now().timeIntervalSince1970 - sentAt))
        }
        await local.publish(envelope.message, to: envelope.topic)
    }
}

/// Closes the bus's listening connection when the application shuts down.
package struct PostgresEventBusLifecycle: LifecycleHandler {
    package let bus: PostgresEventBus

    package func shutdownAsync(_ application: Application) async {
        await bus.shutdown()
    }

    package init(bus: PostgresEventBus) {
        self.bus = bus
    }
}
