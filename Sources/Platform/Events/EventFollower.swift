import NIOConcurrencyHelpers
import Vapor

extension Application {
    /// Follows `topic` of the event bus from boot to shutdown: `handle` gets every message published
    /// there from then on, one at a time, this instance's own included. The one way a feature keeps
    /// what it holds in memory (an index, a cache) in step with writes on every instance.
    package func follow(_ topic: String, _ handle: @escaping @Sendable (Application, String) async -> Void) {
        lifecycle.use(EventFollower(topic: topic, handle: handle))
    }
}

private struct EventFollower: LifecycleHandler {
    let topic: String
    let handle: @Sendable (Application, String) async -> Void
    let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    func didBootAsync(_ app: Application) async throws {
        let messages = app.events.subscribe(to: topic)
        let handle = handle
        task.withLockedValue {
            $0 = Task {
                for await message in messages { await handle(app, message) }
            }
        }
    }

    func shutdownAsync(_ app: Application) async {
        task.withLockedValue { $0 }?.cancel()
    }
}
