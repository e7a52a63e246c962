import NIOConcurrencyHelpers

/// One run of a piece of work at a time: whoever asks while it runs waits for that same run
/// instead of starting another. The in-memory indexes load through it, so the first burst of
/// requests after a start loads them once, not once per request.
package final class SingleFlight: Sendable {
    private let current = NIOLockedValueBox<Task<Void, any Error>?>(nil)

    package func run(_ work: @escaping @Sendable () async throws -> Void) async throws {
        let task = current.withLockedValue { current -> Task<Void, any Error> in
            if let running = current { return running }
            let task = Task { try await work() }
            current = task
            return task
        }
        defer { current.withLockedValue { if $0 == task { $0 = nil } } }
        try await task.value
    }

    package init() {}
}
