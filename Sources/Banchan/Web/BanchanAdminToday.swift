import Fluent
import Payments
import Platform
import Vapor

/// The shop's figures on the console's Today tab: what waits for the operator (paid orders to
/// prepare, cancel requests to answer, refunds not through), and the day's orders and takings.
enum BanchanAdminToday {
    /// The figures are kept until an order changed (`KeptOrders`, on every instance) or a refund
    /// was recorded, settled or failed here (`RefundStore.changes`).
    static let version: AdminParts<TodayGroup>.Version = { app in
        app.banchanEnvironment.keptOrders.current &+ RefundStore.changes.current
    }

    static func figures(_ req: Request) async throws -> (heading: String, figures: [TodayFigure]) {
        let service = req.banchan
        let day = try await service.store.dayFigures(since: Calendar.korea.startOfDay(for: service.environment.now()))
        let refunds = try await Refunds.counts(on: req.db)
        let orders = BanchanAdminPages.orders()
        let toPrepare = day.waiting[.paid] ?? 0, requests = day.waiting[.cancelRequested] ?? 0
        return (req.t("admin.today.shop"), [
            TodayFigure(label: req.t("admin.today.to_prepare"), value: String(toPrepare), path: orders + "?status=paid", needsAttention: toPrepare > 0),
            TodayFigure(label: req.t("admin.today.preparing"), value: String(day.waiting[.preparing] ?? 0), path: orders + "?status=preparing"),
            TodayFigure(label: req.t("admin.today.cancel_requests"), value: String(requests), path: orders + "?status=cancel_requested",
                        needsAttention: requests > 0),
            TodayFigure(label: req.t("admin.today.placed"), value: String(day.placedSince), path: orders + "?day=" + BanchanAdminPages.today(req)),
            TodayFigure(label: req.t("admin.today.paid", ["count": String(day.paidSince)]), value: req.won(day.paidAmountSince)),
            TodayFigure(label: req.t("admin.today.refunds_pending"), value: String(refunds.pending), path: orders + "?status=cancelled",
                        needsAttention: refunds.failed > 0),
            TodayFigure(label: req.t("admin.today.refunds_failed"), value: String(refunds.failed), path: orders + "?status=cancelled",
                        needsAttention: refunds.failed > 0),
        ])
    }
}
