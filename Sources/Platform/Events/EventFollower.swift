import NIOConcurrencyHelpers
package import Vapor

extension Application {
    /// Follows `topic` of the event bus until shutdown: `handle` gets every message published there
    /// from now on, one at a time, this instance's own included. The one way a feature keeps what it
    /// holds in memory (an index, a cache) in step with writes on every instance. Call it from
    /// `configure`, once the event bus is set: it listens from that moment, booted or not.
    package func follow(_ topic: String, _ handle: @escaping @Sendable (Application, String) async -> Void) {
        let messages = events.subscribe(to: topic)
        let task = Task { [self] in
            for await message in messages {
                // Messages still queued at shutdown are dropped: their memories go with the app.
                guard !Task.isCancelled else { return }
                await handle(self, message)
            }
        }
        lifecycle.use(StopFollowing(task: task))
    }
}

/// Stops following at shutdown and waits for a message being handled: handlers read the
/// database, which shuts down after the lifecycle handlers (a handler still running then would
/// find no database).
private struct StopFollowing: LifecycleHandler {
    let task: Task<Void, Never>

    func shutdown(_ application: Application) {
        task.cancel()
    }

    func shutdownAsync(_ application: Application) async {
        task.cancel()
        await task.value
    }
}
