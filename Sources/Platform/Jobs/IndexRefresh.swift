import Metrics
package import Vapor

/// Refreshes an in-memory index's entry after a change another instance announced. A failure
/// (the database busy for a moment) is logged, counted in
/// `whatweeat_index_refresh_failures_total{index}` and tried again after 1 s, 5 s and 30 s, so the
/// entry is not left stale until the index's next full reload.
package enum IndexRefresh {
    static let retryDelays: [Duration] = [.seconds(1), .seconds(5), .seconds(30)]

    package static func run(_ index: String, logger: Logger, retryingAfter delays: [Duration] = retryDelays,
                            _ refresh: @escaping @Sendable () async throws -> Void) async {
        do {
            try await refresh()
            return
        } catch {
            failed(index, error, logger: logger)
        }
        Task {
            for delay in delays {
                try? await Task.sleep(for: delay)
                do {
                    try await refresh()
                    logger.info("\(index) refreshed on a retry")
                    return
                } catch {
                    failed(index, error, logger: logger)
                }
            }
        }
    }

    private static func failed(_ index: String, _ error: any Error, logger: Logger) {
        Counter(label: "whatweeat_index_refresh_failures_total", dimensions: [("index", index)]).increment()
        logger.warning("\(index) refresh failed; retrying", metadata: ["error": "\(error)"])
    }
}
