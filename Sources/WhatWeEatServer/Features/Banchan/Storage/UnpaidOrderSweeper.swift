import Fluent
import NIOConcurrencyHelpers
import SQLKit
import Vapor

/// Once a minute, cancels orders whose payment window ran out, so abandoned checkouts give
/// their stock back. Runs in every process; the conditional update lets only one win per order.
struct UnpaidOrderSweeper: LifecycleHandler {
    static let interval: Duration = .seconds(60)
    let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    func didBootAsync(_ application: Application) async throws {
        let window = application.settings.shop.paymentWindow
        let service = BanchanService(application: application)
        task.withLockedValue {
            $0 = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.interval)
                    do {
                        let expired = try await service.expireUnpaidOrders(window: window)
                        if expired > 0 { application.logger.info("cancelled \(expired) unpaid orders past their payment window") }
                    } catch {
                        application.logger.warning("expiring unpaid orders failed: \(error)")
                    }
                }
            }
        }
    }

    func shutdownAsync(_ application: Application) async {
        let running = task.withLockedValue { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        running?.cancel()
    }
}
