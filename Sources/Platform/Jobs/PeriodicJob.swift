import NIOConcurrencyHelpers
package import Vapor

/// Work a process repeats while it runs (sweeping expired rows, abandoned uploads). Every
/// instance runs its own; the work itself must be safe to run twice at once (conditional
/// updates, deletes by id). Returns how many things it did, for the log.
package struct PeriodicJob: LifecycleHandler {
    package let name: String
    package let interval: Duration
    package let work: @Sendable (Application) async throws -> Int
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    package init(_ name: String, every interval: Duration, work: @escaping @Sendable (Application) async throws -> Int) {
        self.name = name
        self.interval = interval
        self.work = work
    }

    package func didBootAsync(_ application: Application) async throws {
        let (name, interval, work) = (name, interval, work)
        task.withLockedValue {
            $0 = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled else { return }
                    do {
                        let done = try await work(application)
                        if done > 0 { application.logger.info("\(name): \(done)") }
                    } catch {
                        application.logger.warning("\(name) failed: \(error)")
                    }
                }
            }
        }
    }

    package func shutdownAsync(_ application: Application) async {
        let running = task.withLockedValue { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        running?.cancel()
    }
}
