import AsyncHTTPClient
@testable import Banchan
import Fluent
import NIOCore
import Payments
import Platform
import Site
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Refunds owed at the payment provider are records, tried at once and retried until the provider
/// confirms them: `FakePortOne` refuses, goes down, answers too late; another process (a restart)
/// picks up what the first one left; a late payment goes back by the same path.
final class RefundTests: XCTestCase {
    private let owner = "refund-device-token-1"
    private var device: HTTPHeaders { ["X-Device-Token": owner] }

    /// An app whose payments go to `portOne`, with calls that give up after `timeout`.
    private func withPortOneApp(_ portOne: FakePortOne, timeout: TimeAmount = .seconds(10), _ body: (Application) async throws -> Void) async throws {
        try await withTestApp(adjust: { $0.shop.gateway = .portOne(url: portOne.url, apiKey: "key-1", apiSecret: "secret-1") }) { app in
            app.paymentGateway = PortOneGateway(baseURL: portOne.url, apiKey: "key-1", apiSecret: "secret-1", client: HTTPClient.shared, timeout: timeout)
            try await body(app)
        }
    }

    private func withPortOne(_ body: (FakePortOne) async throws -> Void) async throws {
        let portOne = try await FakePortOne.start()
        do { try await body(portOne) } catch {
            await portOne.stop()
            throw error
        }
        await portOne.stop()
    }

    /// A placed and paid order: its id and its payment's id.
    private func paidOrder(_ app: Application, _ portOne: FakePortOne, payment: String) async throws -> String {
        let order = try await BanchanAPITests.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
        let id = try XCTUnwrap(order["id"] as? String)
        portOne.record(impUID: payment, merchantUID: try XCTUnwrap(order["merchantUID"] as? String), amount: 17_400, status: "paid")
        let paid = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": payment], headers: device)
        XCTAssertEqual(try paid.object()["status"] as? String, "paid", paid.text)
        return id
    }

    private func refundStatus(_ app: Application, _ id: String) async throws -> String? {
        try await app.send(.GET, "/api/v1/banchan/orders/\(id)", headers: device).object()["refundStatus"] as? String
    }

    private func row(_ app: Application, payment: String) async throws -> (attempts: Int, lastError: String?, outcome: String?) {
        let row = try await RefundStore(database: app.db).refund(paymentID: payment)
        let found = try XCTUnwrap(row, "a refund is recorded for \(payment)")
        return (found.attempts, found.lastError, found.outcome)
    }

    func testARefusedRefundIsRetriedWithBackoffUntilTheProviderTakesIt() async throws {
        try await withPortOne { portOne in
            try await withPortOneApp(portOne) { app in
                let id = try await paidOrder(app, portOne, payment: "imp_refused")
                portOne.refuseCancels(3)
                let cancelled = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", json: ["reason": "changed my mind"], headers: device)
                XCTAssertEqual(cancelled.status, .ok, cancelled.text)
                XCTAssertEqual(try cancelled.object()["status"] as? String, "cancelled")
                XCTAssertEqual(try cancelled.object()["refundStatus"] as? String, "pending", "the buyer is told the money is on its way, not that it came")
                XCTAssertEqual(portOne.cancelled, [])
                var recorded = try await row(app, payment: "imp_refused")
                XCTAssertEqual(recorded.attempts, 1)
                XCTAssertTrue(recorded.lastError?.contains("PG사 취소 요청 실패") == true, "\(String(describing: recorded.lastError))")
                let counts = try await Refunds.counts(on: app.db)
                XCTAssertEqual(counts.pending, 1)
                XCTAssertEqual(counts.failed, 1)
                try await Refunds.publishCounts(on: app.db)
                let metrics = AppMetrics.prometheusText()
                XCTAssertTrue(metrics.contains("whatweeat_refunds_pending 1") && metrics.contains("whatweeat_refunds_failed 1"), metrics)

                // Each failure is logged with the order's id and waits longer: 30 s, then 60 s.
                let log = RecordedLines()
                let start = Date()
                var settled = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: log.logger(), now: start.addingTimeInterval(10))
                XCTAssertEqual(settled, 0)
                XCTAssertEqual(portOne.cancelCalls, 1, "not due yet: nothing sent")
                settled = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: log.logger(), now: start.addingTimeInterval(31))
                XCTAssertEqual(settled, 0)
                XCTAssertEqual(portOne.cancelCalls, 2)
                XCTAssertTrue(log.contains("refund failed") && log.contains(id.uppercased()), log.lines.withLockedValue { $0 }.joined(separator: "\n"))
                settled = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: log.logger(), now: start.addingTimeInterval(62))
                XCTAssertEqual(portOne.cancelCalls, 2, "the second failure waits 60 s")
                settled = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: log.logger(), now: start.addingTimeInterval(92))
                XCTAssertEqual(portOne.cancelCalls, 3)
                settled = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: log.logger(), now: start.addingTimeInterval(400))
                XCTAssertEqual(settled, 1)
                XCTAssertEqual(portOne.cancelled, ["imp_refused"])
                recorded = try await row(app, payment: "imp_refused")
                XCTAssertEqual(recorded.attempts, 4)
                XCTAssertEqual(recorded.outcome, "refunded")
                let refundStatus = try await refundStatus(app, id)
                XCTAssertEqual(refundStatus, "done")
                let after = try await Refunds.counts(on: app.db)
                XCTAssertEqual(after.pending, 0)
                XCTAssertEqual(after.failed, 0)
                try await Refunds.publishCounts(on: app.db)
                XCTAssertTrue(AppMetrics.prometheusText().contains("whatweeat_refunds_pending 0"))
                // Settled is settled: nothing more is sent.
                _ = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: log.logger(), now: start.addingTimeInterval(99_999))
                XCTAssertEqual(portOne.cancelCalls, 4)
            }
        }
    }

    func testARefundAnsweredAfterTheTimeoutIsRecognisedNotRepeated() async throws {
        try await withPortOne { portOne in
            try await withPortOneApp(portOne, timeout: .milliseconds(300)) { app in
                let id = try await paidOrder(app, portOne, payment: "imp_slow")
                portOne.answerCancels(after: .seconds(2))
                let cancelled = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", json: [String: String](), headers: device)
                XCTAssertEqual(try cancelled.object()["refundStatus"] as? String, "pending", "our call timed out, so we cannot say it is done")
                XCTAssertEqual(portOne.cancelled, ["imp_slow"], "the provider took it all the same")
                portOne.answerCancels(after: .zero)
                let settled = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: app.logger, now: Date().addingTimeInterval(60))
                XCTAssertEqual(settled, 1)
                XCTAssertEqual(portOne.cancelCalls, 1, "the next attempt asked first and saw the payment cancelled")
                let recorded = try await row(app, payment: "imp_slow")
                XCTAssertEqual(recorded.outcome, "already_cancelled")
                let status = try await refundStatus(app, id)
                XCTAssertEqual(status, "done")
            }
        }
    }

    /// The process that claimed a refund dies mid-call; after the claim's lease another process
    /// (a restart, a second instance) reading the same database settles it, once.
    func testARestartInTheMiddleLosesNothing() async throws {
        try await withPortOne { portOne in
            var settings: Settings?
            try await withTestApp(adjust: {
                $0.shop.gateway = .portOne(url: portOne.url, apiKey: "key-1", apiSecret: "secret-1")
                settings = $0
            }) { app in
                let id = try await paidOrder(app, portOne, payment: "imp_restart")
                // Down while the order is cancelled: the refund is recorded and waits.
                portOne.outage(calls: 1)
                _ = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", json: [String: String](), headers: device)
                let attemptsOfImpRestart = try await row(app, payment: "imp_restart").attempts
                XCTAssertEqual(attemptsOfImpRestart, 1)

                // This process claims it again and hangs in the provider's call.
                portOne.answerCancels(after: .seconds(3))
                let claimedAt = Date().addingTimeInterval(31)
                let hanging = Task { try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: app.logger, now: claimedAt) }
                let givingUp = Date().addingTimeInterval(10)
                while portOne.cancelCalls == 0, Date() < givingUp { try await Task.sleep(for: .milliseconds(20)) }
                XCTAssertEqual(portOne.cancelCalls, 1, "the first process is inside the refund call")

                let restarted = try await Application.make(.testing)
                do {
                    try await configureSite(restarted, settings: try XCTUnwrap(settings), features: BanchanSite.features)
                    let during = try await Refunds.attemptDue(on: restarted.db, gateway: restarted.paymentGateway, logger: restarted.logger, now: claimedAt)
                    XCTAssertEqual(during, 0, "a claimed refund is not tried twice at once")
                    let afterLease = claimedAt.addingTimeInterval(Refunds.claimLease + 1)
                    let settled = try await Refunds.attemptDue(on: restarted.db, gateway: restarted.paymentGateway, logger: restarted.logger, now: afterLease)
                    XCTAssertEqual(settled, 1)
                } catch {
                    try? await restarted.asyncShutdown()
                    throw error
                }
                try await restarted.asyncShutdown()
                _ = try await hanging.value
                XCTAssertEqual(portOne.cancelled, ["imp_restart"], "refunded once")
                let outcomeOfImpRestart = try await row(app, payment: "imp_restart").outcome
                XCTAssertEqual(outcomeOfImpRestart, "already_cancelled")
                let status = try await refundStatus(app, id)
                XCTAssertEqual(status, "done")
            }
        }
    }

    /// A payment for an order whose window ran out: refunded by the ledger, whether the provider
    /// answers at once or only later. A payment that turns out to be another order's is left alone.
    func testLatePaymentsAreRefundedThroughTheLedgerEvenWhenTheProviderIsDown() async throws {
        try await withPortOne { portOne in
            try await withPortOneApp(portOne) { app in
                func expiredOrder() async throws -> (id: String, merchantUID: String) {
                    let order = try await BanchanAPITests.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
                    _ = try await app.withClock(\.banchanEnvironment, ahead: 3600) { try await BanchanService(application: app).expireUnpaidOrders(window: 60) }
                    return (try XCTUnwrap(order["id"] as? String), try XCTUnwrap(order["merchantUID"] as? String))
                }
                let late = try await expiredOrder()
                portOne.record(impUID: "imp_late", merchantUID: late.merchantUID, amount: 17_400, status: "paid")
                portOne.outage(calls: 1)
                let down = try await app.send(.POST, "/api/v1/banchan/orders/\(late.id)/payment", json: ["paymentID": "imp_late"], headers: device)
                XCTAssertEqual(down.status, .serviceUnavailable, down.text)
                XCTAssertEqual(down.errorCode, "payment_provider_unavailable")
                XCTAssertEqual(portOne.cancelled, ["imp_late"], "the recorded refund was tried at once, once the outage passed")
                let status = try await refundStatus(app, late.id)
                XCTAssertEqual(status, "done")
                // The app asks again: the payment is known as refunded.
                let again = try await app.send(.POST, "/api/v1/banchan/orders/\(late.id)/payment", json: ["paymentID": "imp_late"], headers: device)
                XCTAssertEqual(again.errorCode, "payment_after_cancellation")
                XCTAssertEqual(portOne.cancelCalls, 1)

                // Another order's payment named while the provider is down: checked later, not refunded.
                let other = try await expiredOrder()
                portOne.record(impUID: "imp_someone_else", merchantUID: "another-merchant-uid", amount: 17_400, status: "paid")
                portOne.outage(calls: 2)
                let named = try await app.send(.POST, "/api/v1/banchan/orders/\(other.id)/payment", json: ["paymentID": "imp_someone_else"], headers: device)
                XCTAssertEqual(named.errorCode, "payment_provider_unavailable")
                _ = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: app.logger, now: Date().addingTimeInterval(60))
                let outcomeOfImpSomeoneElse = try await row(app, payment: "imp_someone_else").outcome
                XCTAssertEqual(outcomeOfImpSomeoneElse, "not_this_order")
                XCTAssertFalse(portOne.cancelled.contains("imp_someone_else"))

                // Made-up payment ids while the provider is down cannot grow the table past a few per order.
                portOne.outage(calls: 1000)
                for n in 0..<8 {
                    _ = try await app.send(.POST, "/api/v1/banchan/orders/\(other.id)/payment", json: ["paymentID": "imp_made_up_\(n)"], headers: device)
                }
                let rows = try await RefundStore(database: app.db).count(subject: BanchanOrder.refundSubject(UUID(uuidString: other.id)))
                XCTAssertEqual(rows, Refunds.maxPerSubject)
            }
        }
    }

    /// Two instances trying due refunds at once never refund one payment twice (on PostgreSQL the
    /// claim skips rows another transaction holds; on SQLite writes are one at a time).
    func testInstancesTryingAtOnceRefundEachPaymentOnce() async throws {
        try await withPortOne { portOne in
            try await withPortOneApp(portOne) { app in
                portOne.outage(calls: 1000)
                for n in 0..<12 {
                    let payment = "imp_parallel_\(n)"
                    portOne.record(impUID: payment, merchantUID: "m-\(n)", amount: 100, status: "paid")
                    try await Refunds.request(.init(gateway: "portone", paymentID: payment, merchantUID: "m-\(n)", subject: "test:\(n)", reason: "test"), on: app.db, now: Date())
                }
                portOne.outage(calls: 0)
                let later = Date().addingTimeInterval(1)
                async let first = Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: app.logger, now: later)
                async let second = Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: app.logger, now: later)
                let total = try await first + second
                XCTAssertEqual(total, 12)
                XCTAssertEqual(portOne.cancelCalls, 12, "each payment refunded by one instance")
                XCTAssertEqual(Set(portOne.cancelled).count, 12)
            }
        }
    }

    /// The buyer's order page says the refund is under way until the provider confirms it.
    func testTheOrderPageSaysRefundInProgressUntilItIsDone() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "1"])
            let placed = try await browser.post("/shop/orders", form: Fixtures.checkoutForm(key: "refund-page-1"))
            let location = try XCTUnwrap(placed.headers.first(name: .location))
            _ = try await browser.post(location + "/pay", form: [:])
            let paid = try await browser.get(location)
            XCTAssertTrue(paid.text.contains(#"status-paid"#))
            // The operator switched providers since: the test provider's refund cannot be made now.
            app.paymentGateway = nil
            _ = try await browser.post(location + "/cancel", form: [:])
            let pending = try await browser.get(location)
            XCTAssertTrue(pending.text.contains(#"id="order-refund">환불 진행 중이에요"#), pending.text)
            app.paymentGateway = TestPaymentGateway()
            _ = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: app.logger, now: Date().addingTimeInterval(60))
            let done = try await browser.get(location)
            XCTAssertTrue(done.text.contains(#"id="order-refund">환불이 완료됐어요"#), done.text)
        }
    }

    /// Issue 41: the console shows a refund that keeps failing and tries it again on the operator's
    /// word, at once rather than at its backoff's time; audited. Only administrators reach it.
    func testAnOperatorRetriesAFailingRefundFromTheConsole() async throws {
        try await withPortOne { portOne in
            try await withPortOneApp(portOne) { app in
                _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
                let id = try await paidOrder(app, portOne, payment: "imp_console")
                portOne.refuseCancels(1)
                _ = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", json: ["reason": "changed my mind"], headers: device)
                let pending = try await refundStatus(app, id)
                XCTAssertEqual(pending, "pending")

                let member = try await app.member("구경꾼")
                var someone = try await CookieBrowser.signedIn(app, as: member.email)
                _ = try await someone.get("/shop")
                let refused = try await someone.post("/admin/orders/\(id)/refund", form: [:])
                XCTAssertEqual(refused.status, .notFound)
                XCTAssertEqual(portOne.cancelCalls, 1, "a non-admin's retry sends nothing")

                var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
                let page = try await boss.get("/admin/orders/\(id)")
                XCTAssertTrue(page.text.contains(#"id="retry-refund""#), "a refund under way can be tried again")
                let retried = try await boss.post("/admin/orders/\(id)/refund", form: [:])
                XCTAssertEqual(retried.status, .seeOther)
                XCTAssertEqual(portOne.cancelled, ["imp_console"], "tried now, not in 30 s")
                let done = try await refundStatus(app, id)
                XCTAssertEqual(done, "done")
                let after = try await boss.get("/admin/orders/\(id)")
                XCTAssertFalse(after.text.contains(#"id="retry-refund""#))
                let entries = try await AuditLog(database: app.db).page(CursorPageRequest())
                XCTAssertEqual(entries.items.first?.action, "banchan.order.refund_retry")
                XCTAssertEqual(entries.items.first?.before, ["refund": "pending"])
                XCTAssertEqual(entries.items.first?.after, ["refund": "done"])
            }
        }
    }

    // MARK: Issue 56

    /// `whatweeat_banchan_payments_duplicate_total` as `/metrics` shows it (0 before the first).
    private func duplicatesCounted() -> Int {
        AppMetrics.prometheusText().split(separator: "\n")
            .first { $0.hasPrefix("whatweeat_banchan_payments_duplicate_total ") }
            .flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// Finding 1 (probe 2026-12-05): a second payment for an order already paid with another is
    /// looked up, refunded once through the queue and answered 409 `payment_duplicate`; the
    /// order keeps its first payment.
    func testASecondPaymentForAPaidOrderIsRefundedOnceThroughTheQueue() async throws {
        try await withPortOne { portOne in
            try await withPortOneApp(portOne) { app in
                let counted = duplicatesCounted()
                let id = try await paidOrder(app, portOne, payment: "imp_first")
                let placed = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", headers: device).object()
                let merchantUID = try XCTUnwrap(placed["merchantUID"] as? String)
                portOne.record(impUID: "imp_second", merchantUID: merchantUID, amount: 17_400, status: "paid")
                let second = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": "imp_second"], headers: device)
                XCTAssertEqual(second.status, .conflict, second.text)
                XCTAssertEqual(second.errorCode, "payment_duplicate")
                XCTAssertEqual(second.errorMessage, "이 주문은 이미 다른 결제로 결제됐어요. 방금 결제는 환불해요.")
                XCTAssertEqual(portOne.cancelled, ["imp_second"], "the second payment goes back, the first is kept")
                let recorded = try await row(app, payment: "imp_second")
                XCTAssertEqual(recorded.outcome, "refunded", "through the refund records")
                XCTAssertEqual(duplicatesCounted(), counted + 1)
                let order = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", headers: device).object()
                XCTAssertEqual(order["status"] as? String, "paid")
                XCTAssertEqual(order["paymentID"] as? String, "imp_first")
                XCTAssertEqual(order["refundStatus"] as? String, "done")
                // The order stands: the console says which money went back, not that the order was refunded.
                _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
                var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
                let page = try await boss.get("/admin/orders/\(id)")
                XCTAssertTrue(page.text.contains(#"id="admin-order-refund">이 주문에 한 번 더 결제된 금액은 환불됐어요."#), page.text)

                // Asked again: the same answer, and nothing more is sent or counted.
                let again = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": "imp_second"], headers: device)
                XCTAssertEqual(again.errorCode, "payment_duplicate")
                XCTAssertEqual(portOne.cancelCalls, 1)
                XCTAssertEqual(duplicatesCounted(), counted + 1)
                // The first payment confirmed again is still the retried confirmation.
                let first = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": "imp_first"], headers: device)
                XCTAssertEqual(first.status, .ok, first.text)
                // Someone else's payment is not this order's to refund.
                portOne.record(impUID: "imp_not_ours", merchantUID: "another-merchant-uid", amount: 17_400, status: "paid")
                let other = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": "imp_not_ours"], headers: device)
                XCTAssertEqual(other.errorCode, "order_not_awaiting_payment")
                XCTAssertEqual(portOne.cancelled, ["imp_second"])

                // The provider down when a second payment is named: recorded all the same, 503 to ask again.
                portOne.record(impUID: "imp_third", merchantUID: merchantUID, amount: 17_400, status: "paid")
                portOne.outage(calls: 2)
                let down = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": "imp_third"], headers: device)
                XCTAssertEqual(down.status, .serviceUnavailable, down.text)
                XCTAssertEqual(down.errorCode, "payment_provider_unavailable")
                _ = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: app.logger, now: Date().addingTimeInterval(60))
                XCTAssertEqual(portOne.cancelled, ["imp_second", "imp_third"])
            }
        }
    }

    /// Finding 1, concurrently: several paid payments for one order confirmed at once (every
    /// look-up answered before any is kept) keep one; each other one is refunded once.
    func testConcurrentPaymentsForOneOrderKeepOneAndRefundTheOthersOnce() async throws {
        try await withPortOne { portOne in
            try await withPortOneApp(portOne) { app in
                let order = try await BanchanAPITests.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
                let id = try XCTUnwrap(order["id"] as? String)
                let payments = (0..<4).map { "imp_race_\($0)" }
                for payment in payments {
                    portOne.record(impUID: payment, merchantUID: try XCTUnwrap(order["merchantUID"] as? String), amount: 17_400, status: "paid")
                }
                portOne.answerLookUps(after: .milliseconds(500))
                let headers = device
                let answers = try await withThrowingTaskGroup(of: (String, UInt, String?).self) { group in
                    for payment in payments {
                        group.addTask {
                            let answer = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": payment], headers: headers)
                            return (payment, answer.status.code, answer.errorCode)
                        }
                    }
                    return try await group.reduce(into: [(String, UInt, String?)]()) { $0.append($1) }
                }
                portOne.answerLookUps(after: .zero)
                let kept = answers.filter { $0.1 == 200 }.map(\.0)
                XCTAssertEqual(kept.count, 1, "\(answers)")
                XCTAssertEqual(answers.filter { $0.1 == 409 && $0.2 == "payment_duplicate" }.count, 3, "\(answers)")
                XCTAssertEqual(Set(portOne.cancelled), Set(payments).subtracting(kept))
                XCTAssertEqual(portOne.cancelled.count, 3, "each refunded once")
                let paid = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", headers: device).object()
                XCTAssertEqual(paid["status"] as? String, "paid")
                XCTAssertEqual(paid["paymentID"] as? String, kept.first)
                for refunded in Set(payments).subtracting(kept) {
                    let outcome = try await row(app, payment: refunded).outcome
                    XCTAssertEqual(outcome, "refunded")
                }
            }
        }
    }

    /// Finding 5: while an attempt's call is with the provider (which reads the payment `paid`
    /// until it answers), the console's "retry refund", pressed several times at once, starts no
    /// second call and says the refund is already being tried; refused presses are not audited.
    func testTheConsolesRetryNeverOverlapsAnAttemptWithTheProvider() async throws {
        try await withPortOne { portOne in
            try await withPortOneApp(portOne) { app in
                _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
                let id = try await paidOrder(app, portOne, payment: "imp_in_flight")
                portOne.refuseCancels(1)
                _ = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", json: ["reason": "changed my mind"], headers: device)
                let pending = try await refundStatus(app, id)
                XCTAssertEqual(pending, "pending")
                var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
                _ = try await boss.get("/admin/orders/\(id)")
                let (cookies, csrf) = (boss.cookies, boss.lastCSRFToken)
                @Sendable func press() async throws -> TestingHTTPResponse {
                    var browser = CookieBrowser(app: app, cookies: cookies, lastCSRFToken: csrf)
                    return try await browser.post("/admin/orders/\(id)/refund", form: [:])
                }

                portOne.holdCancels(for: .seconds(3))
                let first = Task { try await press() }
                let givingUp = Date().addingTimeInterval(10)
                while portOne.cancelsInFlight == 0, Date() < givingUp { try await Task.sleep(for: .milliseconds(20)) }
                XCTAssertEqual(portOne.cancelsInFlight, 1, "the first press's call is with the provider")
                let presses = try await withThrowingTaskGroup(of: TestingHTTPResponse.self) { group in
                    for _ in 0..<3 { group.addTask { try await press() } }
                    return try await group.reduce(into: [TestingHTTPResponse]()) { $0.append($1) }
                }
                XCTAssertEqual(presses.map(\.status), [.conflict, .conflict, .conflict])
                for refused in presses {
                    XCTAssertTrue(refused.text.contains("이 환불은 지금 결제사에 요청 중이에요."), refused.text)
                }
                XCTAssertEqual(portOne.cancelCalls, 2, "the refused cancel, then the first press's: none more")
                let answered = try await first.value
                XCTAssertEqual(answered.status, .seeOther, answered.text)
                XCTAssertEqual(portOne.mostCancelsInFlight, 1, "never two calls at once")
                XCTAssertEqual(portOne.cancelled, ["imp_in_flight"], "refunded once")
                let done = try await refundStatus(app, id)
                XCTAssertEqual(done, "done")
                let retries = try await AuditLog(database: app.db).page(CursorPageRequest()).items.filter { $0.action == "banchan.order.refund_retry" }
                XCTAssertEqual(retries.count, 1, "a refused press is not an action")
            }
        }
    }

    /// Finding 5, once the claim is over: a claim whose holder died holds the refund for its lease
    /// (try again now leaves it alone), then "try again now" tries it at once.
    func testTryAgainNowWaitsForAHeldClaimThenTries() async throws {
        try await withPortOne { portOne in
            try await withPortOneApp(portOne) { app in
                let id = try await paidOrder(app, portOne, payment: "imp_lapsed")
                portOne.refuseCancels(1)
                _ = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", json: [String: String](), headers: device)
                let subject = BanchanOrder.refundSubject(UUID(uuidString: id))
                let refund = try await RefundStore(database: app.db).refund(paymentID: "imp_lapsed")
                let refundID = try XCTUnwrap(refund?.id)
                // Another process claims it at its backoff's time and dies in the provider's call.
                let claimedAt = Date().addingTimeInterval(31)
                let claimed = try await RefundStore(database: app.db).claimDue(only: refundID, limit: 1, now: claimedAt,
                                                                                leaseEnd: claimedAt.addingTimeInterval(Refunds.claimLease))
                XCTAssertEqual(claimed.count, 1)
                do {
                    _ = try await Refunds.retryNow(subject: subject, on: app.db, gateway: app.paymentGateway, logger: app.logger, now: claimedAt.addingTimeInterval(5))
                    XCTFail("a held refund is not tried again")
                } catch let error as AppError {
                    XCTAssertEqual(error.code, "refund_already_being_tried")
                }
                XCTAssertEqual(portOne.cancelCalls, 1, "only the refused first attempt")
                let afterLease = claimedAt.addingTimeInterval(Refunds.claimLease + 1)
                let state = try await Refunds.retryNow(subject: subject, on: app.db, gateway: app.paymentGateway, logger: app.logger, now: afterLease)
                XCTAssertEqual(state, .done)
                XCTAssertEqual(portOne.cancelled, ["imp_lapsed"])
                XCTAssertEqual(portOne.cancelCalls, 2)
            }
        }
    }
}
