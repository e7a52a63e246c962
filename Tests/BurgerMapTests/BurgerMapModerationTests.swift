@testable import BurgerMap
import BurgerMapTesting
import Fluent
import Platform
import WhatWeEatTesting
import XCTVapor

/// The map's part of the console's Moderation tab (`/admin/moderation`, administrators only):
/// reviews with reports nobody decided on and hidden reviews, hidden or shown again with a reason
/// the author is told, and place suggestions set aside once read; every decision audited.
final class BurgerMapModerationTests: XCTestCase {
    static let reasonRequired = "당사자에게 보낼 이유를 200자 안으로 적어 주세요."

    /// The figure whose label is `label` on the Today page: its value.
    func figure(_ page: String, _ label: String) -> String? {
        guard let labelRange = page.range(of: #"<span class="figure-label">\#(label)</span>"#) else { return nil }
        let before = page[..<labelRange.lowerBound]
        guard let open = before.range(of: #"<span class="figure-value">"#, options: .backwards) else { return nil }
        return before[open.upperBound...].components(separatedBy: "</span>").first
    }

    /// The review's entry on the Moderation page (up to its `</li>`); nil when it is not listed.
    func entry(_ page: TestingHTTPResponse, _ review: UUID) -> String? {
        guard let start = page.text.range(of: #"data-review="\#(review.uuidString.lowercased())""#) else { return nil }
        return page.text[start.upperBound...].components(separatedBy: "</li>").first
    }

    func mapAudit(_ app: Application) async throws -> [AuditEntry] {
        try await AuditLog(database: app.db).page(CursorPageRequest()).items.filter { $0.action.hasPrefix("burger_map.") }
    }

    /// The member's newest inbox entry of this kind, nil when there is none.
    func notice(_ app: Application, _ member: Member, kind: String) async throws -> [String: Any]? {
        let inbox = try await app.send(.GET, "/api/v1/notifications", token: member.token)
        XCTAssertEqual(inbox.status, .ok, inbox.text)
        return try XCTUnwrap(try inbox.object()["items"] as? [[String: Any]]).first { $0["kind"] as? String == kind }
    }

    func openReports(_ app: Application, _ review: UUID) async throws -> Int {
        try await BurgerReport.query(on: app.db).filter(\.$review.$id == review).filter(\.$dismissedAt == nil).count()
    }

    /// A review by `author` at a place of its own, with one report (from a fresh account, which
    /// hides nothing) that nobody has decided on.
    func reportedReview(_ app: Application, author: Member, reason: String = "광고 같아요") async throws -> (review: UUID, place: UUID) {
        let place = try await app.place(author.token)
        let review = try await app.review(author.token, place: place, title: "수상한 리뷰")
        let reporter = try await app.member("신고자")
        let reported = try await app.send(.POST, "/api/v1/burger-map/reviews/\(review)/report", json: ["reason": reason], token: reporter.token)
        XCTAssertEqual(reported.status, .ok, reported.text)
        XCTAssertEqual(try reported.object()["hidden"] as? Bool, false, "one fresh report hides nothing")
        return (review, place)
    }

    /// The operator's browser, signed in, with a CSRF token for its forms.
    func console(_ app: Application, _ admin: Member) async throws -> CookieBrowser {
        var browser = try await CookieBrowser.signedIn(app, as: admin.email)
        _ = try await browser.get("/me")
        return browser
    }

    func testOnlyAdministratorsReachTheTabAndItsDecisions() async throws {
        try await withTestApp { app in
            _ = try await app.member("관리자", admin: true)
            let author = try await app.member("작성자")
            let (review, _) = try await reportedReview(app, author: author)
            let decide = "/admin/moderation/reviews/\(review)"

            let anonymousPage = try await app.send(.GET, "/admin/moderation")
            XCTAssertEqual(anonymousPage.status, .notFound)
            var anonymous = CookieBrowser(app: app)
            _ = try await anonymous.get("/login")
            let anonymousHide = try await anonymous.post(decide, form: ["decision": "hide", "reason": "숨겨요"])
            XCTAssertEqual(anonymousHide.status, .notFound, anonymousHide.text)

            let member = try await app.member("구경꾼")
            var someone = try await CookieBrowser.signedIn(app, as: member.email)
            let page = try await someone.get("/admin/moderation")
            XCTAssertEqual(page.status, .notFound)
            XCTAssertNil(entry(page, review), "not a hint of what waits")
            _ = try await someone.get("/me")
            for path in [decide, "/admin/moderation/suggestions/\(UUID())/dismiss"] {
                let forced = try await someone.post(path, form: ["decision": "hide", "reason": "숨겨요"])
                XCTAssertEqual(forced.status, .notFound, path)
            }

            let stillUp = try await app.status("/api/v1/burger-map/reviews/\(review)")
            XCTAssertEqual(stillUp, .ok, "nothing hidden")
            let open = try await openReports(app, review)
            XCTAssertEqual(open, 1, "the report still waits")
            let audited = try await mapAudit(app)
            XCTAssertEqual(audited.count, 0)
            let told = try await notice(app, author, kind: "moderation_review_hidden")
            XCTAssertNil(told)
        }
    }

    func testHidingAndShowingAgainTellTheAuthorWhyAndAreAudited() async throws {
        try await withTestApp { app in
            let admin = try await app.member("관리자", admin: true)
            let author = try await app.member("작성자")
            var boss = try await console(app, admin)
            let todayBefore = try await boss.get("/admin")
            let waiting = try XCTUnwrap(Int(figure(todayBefore.text, "결정할 신고된 리뷰") ?? ""), todayBefore.text)

            let (review, place) = try await reportedReview(app, author: author, reason: "광고 같아요")
            let today = try await boss.get("/admin")
            XCTAssertEqual(figure(today.text, "결정할 신고된 리뷰"), String(waiting + 1), "one report is enough to wait")
            let listed = try await boss.get("/admin/moderation")
            XCTAssertEqual(listed.status, .ok)
            let waitingEntry = try XCTUnwrap(entry(listed, review), "the reported review is on the page")
            XCTAssertTrue(waitingEntry.contains("결정 안 한 신고 1건"), waitingEntry)
            XCTAssertTrue(waitingEntry.contains("광고 같아요"), "the report's reason")
            XCTAssertTrue(waitingEntry.contains("수상한 리뷰"))
            let shownCount = try await app.placeDetail(place).reviewCount
            XCTAssertEqual(shownCount, 1)

            // Hidden: gone for strangers and from the place's count; the author is told why.
            let hide = try await boss.post("/admin/moderation/reviews/\(review)", form: ["decision": "hide", "reason": "광고성 리뷰라 숨겨요"])
            XCTAssertEqual(hide.status, .seeOther, hide.text)
            XCTAssertEqual(hide.headers.first(name: .location), "/admin/moderation#moderation-reviews")
            let strangerRead = try await app.send(.GET, "/api/v1/burger-map/reviews/\(review)")
            XCTAssertEqual(strangerRead.status, .notFound)
            let hiddenCount = try await app.placeDetail(place).reviewCount
            XCTAssertEqual(hiddenCount, shownCount - 1)
            let openAfterHide = try await openReports(app, review)
            XCTAssertEqual(openAfterHide, 0, "the reports are decided on")
            var audited = try await mapAudit(app)
            XCTAssertEqual(audited.map(\.action), ["burger_map.review.hide"])
            XCTAssertEqual(audited.first?.subjectType, "burger_review")
            XCTAssertEqual(audited.first?.subjectID, review.uuidString)
            XCTAssertEqual(audited.first?.actorID, admin.id)
            XCTAssertEqual(audited.first?.after?["reason"], "광고성 리뷰라 숨겨요")
            XCTAssertEqual(audited.first?.before?["hidden"], "false")
            let hiddenNotice = try await notice(app, author, kind: "moderation_review_hidden")
            let toldHidden = try XCTUnwrap(hiddenNotice, "the author is told")
            XCTAssertEqual(toldHidden["excerpt"] as? String, "광고성 리뷰라 숨겨요")
            XCTAssertEqual(toldHidden["message"] as? String, "운영자가 내 리뷰를 숨겼어요.")
            XCTAssertEqual((toldHidden["subjectId"] as? String).flatMap(UUID.init(uuidString:)), review)
            let todayAfterHide = try await boss.get("/admin")
            XCTAssertEqual(figure(todayAfterHide.text, "결정할 신고된 리뷰"), String(waiting), "decided: no longer waiting")

            let hiddenPage = try await boss.get("/admin/moderation")
            let hiddenEntry = try XCTUnwrap(entry(hiddenPage, review), "a hidden review stays on the page")
            XCTAssertTrue(hiddenEntry.contains("숨겨진 리뷰"), hiddenEntry)
            XCTAssertTrue(hiddenEntry.contains("다시 보이기"), hiddenEntry)

            // Shown again: back for strangers and in the count; the author is told.
            let restore = try await boss.post("/admin/moderation/reviews/\(review)", form: ["decision": "restore", "reason": "다시 보니 괜찮아요"])
            XCTAssertEqual(restore.status, .seeOther, restore.text)
            let strangerAgain = try await app.send(.GET, "/api/v1/burger-map/reviews/\(review)")
            XCTAssertEqual(strangerAgain.status, .ok)
            XCTAssertEqual(try strangerAgain.json(BurgerMapJSON.Review.self).hidden, false)
            let restoredCount = try await app.placeDetail(place).reviewCount
            XCTAssertEqual(restoredCount, shownCount)
            audited = try await mapAudit(app)
            XCTAssertEqual(audited.map(\.action).sorted(), ["burger_map.review.hide", "burger_map.review.restore"])
            let restoreEntry = try XCTUnwrap(audited.first { $0.action == "burger_map.review.restore" })
            XCTAssertEqual(restoreEntry.subjectID, review.uuidString)
            XCTAssertEqual(restoreEntry.after?["reason"], "다시 보니 괜찮아요")
            XCTAssertEqual(restoreEntry.before?["hidden"], "true")
            let restoredNotice = try await notice(app, author, kind: "moderation_review_restored")
            let toldRestored = try XCTUnwrap(restoredNotice, "the author is told")
            XCTAssertEqual(toldRestored["excerpt"] as? String, "다시 보니 괜찮아요")
            XCTAssertEqual(toldRestored["message"] as? String, "운영자가 내 리뷰를 다시 보이게 했어요.")
            let clearedPage = try await boss.get("/admin/moderation")
            XCTAssertNil(entry(clearedPage, review), "shown and nothing waiting: off the page")
        }
    }

    /// Finding 6 (probe 2026-12-05): an administrator's restore through the API, and deleting
    /// someone else's review or comment (the API, which the review page's button calls, and the
    /// LookForRealBurger routes share the service), are audited with the author and the title or
    /// first words, in the change's transaction; a restore that changes nothing writes nothing.
    func testAnAdministratorsRestoreAndDeletionsOfOthersContentAreAudited() async throws {
        try await withTestApp { app in
            let admin = try await app.member("관리자", admin: true)
            let author = try await app.member("작성자")
            let commenter = try await app.member("댓글러")
            var boss = try await console(app, admin)
            let (review, _) = try await reportedReview(app, author: author)
            let hidden = try await boss.post("/admin/moderation/reviews/\(review)", form: ["decision": "hide", "reason": "광고성 리뷰라 숨겨요"])
            XCTAssertEqual(hidden.status, .seeOther, hidden.text)

            let restored = try await app.send(.POST, "/api/v1/burger-map/reviews/\(review)/restore", token: admin.token)
            XCTAssertEqual(restored.status, .ok, restored.text)
            var audited = try await mapAudit(app)
            XCTAssertEqual(audited.map(\.action), ["burger_map.review.restore", "burger_map.review.hide"])
            let restore = audited[0]
            XCTAssertEqual(restore.actorID, admin.id)
            XCTAssertEqual(restore.subjectType, "burger_review")
            XCTAssertEqual(restore.subjectID, review.uuidString)
            XCTAssertEqual(restore.before, ["hidden": "true", "author": author.id.uuidString, "title": "수상한 리뷰"])
            XCTAssertEqual(restore.after, ["hidden": "false"])
            let again = try await app.send(.POST, "/api/v1/burger-map/reviews/\(review)/restore", token: admin.token)
            XCTAssertEqual(again.status, .ok)
            audited = try await mapAudit(app)
            XCTAssertEqual(audited.count, 2, "shown already: nothing done, nothing written")

            let words = "패티가 너무 짜서 다음에는 안 갈 것 같아요. 그래도 감자튀김은 정말 맛있었어요."
            let commented = try await app.send(.POST, "/api/v1/burger-map/reviews/\(review)/comments", json: ["text": words], token: commenter.token)
            XCTAssertEqual(commented.status, .created, commented.text)
            let comment = try XCTUnwrap(try commented.object()["id"] as? String)
            let commentDeleted = try await app.send(.DELETE, "/api/v1/burger-map/comments/\(comment)", token: admin.token)
            XCTAssertEqual(commentDeleted.status, .noContent, commentDeleted.text)
            audited = try await mapAudit(app)
            let commentEntry = try XCTUnwrap(audited.first { $0.action == "burger_map.comment.delete" }, "\(audited.map(\.action))")
            XCTAssertEqual(commentEntry.actorID, admin.id)
            XCTAssertEqual(commentEntry.subjectType, "burger_comment")
            XCTAssertEqual(commentEntry.subjectID.lowercased(), comment.lowercased())
            XCTAssertEqual(commentEntry.before?["author"], commenter.id.uuidString)
            XCTAssertEqual(commentEntry.before?["review"], review.uuidString)
            let firstWords = try XCTUnwrap(commentEntry.before?["text"])
            XCTAssertTrue(firstWords.hasPrefix("패티가 너무 짜서") && firstWords.hasSuffix("…") && firstWords.count <= 41, firstWords)
            XCTAssertNil(commentEntry.after)

            let reviewDeleted = try await app.send(.DELETE, "/api/v1/burger-map/reviews/\(review)", token: admin.token)
            XCTAssertEqual(reviewDeleted.status, .noContent, reviewDeleted.text)
            audited = try await mapAudit(app)
            XCTAssertEqual(audited.map(\.action), ["burger_map.review.delete", "burger_map.comment.delete", "burger_map.review.restore", "burger_map.review.hide"])
            XCTAssertEqual(audited[0].actorID, admin.id)
            XCTAssertEqual(audited[0].subjectID, review.uuidString)
            XCTAssertEqual(audited[0].before, ["author": author.id.uuidString, "title": "수상한 리뷰"])
            XCTAssertNil(audited[0].after)
            let gone = try await app.status("/api/v1/burger-map/reviews/\(review)")
            XCTAssertEqual(gone, .notFound)
        }
    }

    /// Finding 6's other side: people deleting their own content (an administrator's own included,
    /// and a review's author deleting a comment on it) are not operators' actions: no entry.
    func testDeletingOnesOwnContentWritesNoAuditEntry() async throws {
        try await withTestApp { app in
            let admin = try await app.member("관리자", admin: true)
            let author = try await app.member("작성자")
            let commenter = try await app.member("댓글러")
            let place = try await app.place(author.token)
            let review = try await app.review(author.token, place: place, title: "내 리뷰")
            let own = try await app.send(.POST, "/api/v1/burger-map/reviews/\(review)/comments", json: ["text": "내 댓글"], token: commenter.token)
            let onMine = try await app.send(.POST, "/api/v1/burger-map/reviews/\(review)/comments", json: ["text": "리뷰에 달린 댓글"], token: commenter.token)
            let adminsOwn = try await app.send(.POST, "/api/v1/burger-map/reviews/\(review)/comments", json: ["text": "관리자의 댓글"], token: admin.token)
            for (comment, token) in [(own, commenter.token), (onMine, author.token), (adminsOwn, admin.token)] {
                let id = try XCTUnwrap(try comment.object()["id"] as? String, comment.text)
                let deleted = try await app.send(.DELETE, "/api/v1/burger-map/comments/\(id)", token: token)
                XCTAssertEqual(deleted.status, .noContent, deleted.text)
            }
            let adminsReview = try await app.review(admin.token, place: place, title: "관리자의 리뷰")
            for (id, token) in [(review, author.token), (adminsReview, admin.token)] {
                let deleted = try await app.send(.DELETE, "/api/v1/burger-map/reviews/\(id)", token: token)
                XCTAssertEqual(deleted.status, .noContent, deleted.text)
            }
            let audited = try await mapAudit(app)
            XCTAssertEqual(audited.map(\.action), [])
        }
    }

    func testADecisionNeedsAReasonAndAKnownDecision() async throws {
        try await withTestApp { app in
            let admin = try await app.member("관리자", admin: true)
            let author = try await app.member("작성자")
            let (review, place) = try await reportedReview(app, author: author)
            let decide = "/admin/moderation/reviews/\(review)"
            var boss = try await console(app, admin)

            for reason in ["", "   ", String(repeating: "가", count: 201)] {
                let refused = try await boss.post(decide, form: ["decision": "hide", "reason": reason])
                XCTAssertEqual(refused.status, .unprocessableEntity, "reason of \(reason.count) characters")
                XCTAssertTrue(refused.text.contains(Self.reasonRequired), "the page says why")
                XCTAssertNotNil(entry(refused, review), "the tab again, the review still on it")
            }
            let withoutReason = try await boss.post(decide, form: ["decision": "hide"])
            XCTAssertEqual(withoutReason.status, .unprocessableEntity)
            for decision in ["delete", ""] {
                let unknown = try await boss.post(decide, form: ["decision": decision, "reason": "이유는 있어요"])
                XCTAssertEqual(unknown.status, .badRequest, "decision \(decision)")
            }
            let unknownReview = try await boss.post("/admin/moderation/reviews/\(UUID())", form: ["decision": "hide", "reason": "이유는 있어요"])
            XCTAssertEqual(unknownReview.status, .notFound)

            let stillUp = try await app.status("/api/v1/burger-map/reviews/\(review)")
            XCTAssertEqual(stillUp, .ok, "a refused decision hides nothing")
            var open = try await openReports(app, review)
            XCTAssertEqual(open, 1)
            var audited = try await mapAudit(app)
            XCTAssertEqual(audited.count, 0, "nothing audited")
            let told = try await notice(app, author, kind: "moderation_review_hidden")
            XCTAssertNil(told)

            // Setting the reports aside on a visible review: it stays up and leaves the list.
            let dismissed = try await boss.post(decide, form: ["decision": "restore", "reason": "신고 내용이 사실과 달라요"])
            XCTAssertEqual(dismissed.status, .seeOther, dismissed.text)
            let afterDismiss = try await app.status("/api/v1/burger-map/reviews/\(review)")
            XCTAssertEqual(afterDismiss, .ok)
            let count = try await app.placeDetail(place).reviewCount
            XCTAssertEqual(count, 1, "a visible review was never out of the count")
            open = try await openReports(app, review)
            XCTAssertEqual(open, 0)
            let page = try await boss.get("/admin/moderation")
            XCTAssertNil(entry(page, review), "nothing waits on it any more")
            audited = try await mapAudit(app)
            XCTAssertEqual(audited.map(\.action), ["burger_map.review.restore"])
            XCTAssertEqual(audited.first?.before?["hidden"], "false")
            let restoredNotice = try await notice(app, author, kind: "moderation_review_restored")
            XCTAssertEqual(restoredNotice?["excerpt"] as? String, "신고 내용이 사실과 달라요")

            // A hidden review is not shown again without a reason either.
            _ = try await boss.get("/me")
            let hidden = try await boss.post(decide, form: ["decision": "hide", "reason": "다시 보니 광고예요"])
            XCTAssertEqual(hidden.status, .seeOther)
            let refusedRestore = try await boss.post(decide, form: ["decision": "restore", "reason": ""])
            XCTAssertEqual(refusedRestore.status, .unprocessableEntity)
            XCTAssertTrue(refusedRestore.text.contains(Self.reasonRequired))
            let stillHidden = try await app.status("/api/v1/burger-map/reviews/\(review)")
            XCTAssertEqual(stillHidden, .notFound)
            audited = try await mapAudit(app)
            XCTAssertEqual(audited.count, 2)
        }
    }

    struct NewPlace: Encodable { let name: String; let address: String; let lat: Double; let lon: Double; let phone: String? }

    func testAPlaceSuggestionIsSetAsideOnceAndAudited() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()
            let admin = try await app.member("관리자", admin: true)
            let maker = try await app.member("가게등록")
            let made = try await app.send(.POST, "/api/v1/burger-map/places", json: NewPlace(
                name: "모더레이션 수제버거", address: "서울 중구 가짜로 9", lat: 37.5400, lon: 127.0100, phone: "010-6666-1111"), token: maker.token)
            XCTAssertEqual(made.status, .created, made.text)
            // Another registration of the name 40 m away with another address and phone: a place of its
            // own (beyond 20 m), and a suggestion that the two may be one.
            let customer = try await app.member("손님")
            let found = try await app.send(.POST, "/api/v1/burger-map/places", json: NewPlace(
                name: "모더레이션 수제버거", address: "서울 중구 진짜로 1", lat: 37.54036, lon: 127.0100, phone: "02-555-1234"), token: customer.token)
            XCTAssertEqual(found.status, .created, found.text)
            let suggestions = try await app.send(.GET, "/api/v1/burger-map/place-suggestions", token: admin.token).object()["items"] as? [[String: Any]]
            XCTAssertEqual(suggestions?.count, 1, "\(suggestions ?? [])")
            let suggestion = try XCTUnwrap((suggestions?.first?["id"] as? String).flatMap(UUID.init(uuidString:)))
            let dismiss = "/admin/moderation/suggestions/\(suggestion.uuidString.lowercased())/dismiss"

            var boss = try await console(app, admin)
            let today = try await boss.get("/admin")
            XCTAssertEqual(figure(today.text, "읽을 장소 정보 제안"), "1")
            let page = try await boss.get("/admin/moderation")
            XCTAssertTrue(page.text.contains(#"action="\#(dismiss)""#), "the suggestion and its form are on the page")
            XCTAssertTrue(page.text.contains("서울 중구 진짜로 1"), "what was suggested")

            let member = try await app.member("구경꾼")
            var someone = try await CookieBrowser.signedIn(app, as: member.email)
            _ = try await someone.get("/me")
            let forced = try await someone.post(dismiss, form: [:])
            XCTAssertEqual(forced.status, .notFound)
            let kept = try await BurgerPlaceSuggestion.query(on: app.db).count()
            XCTAssertEqual(kept, 1, "nobody but an operator sets it aside")

            let dismissed = try await boss.post(dismiss, form: [:])
            XCTAssertEqual(dismissed.status, .seeOther, dismissed.text)
            XCTAssertEqual(dismissed.headers.first(name: .location), "/admin/moderation#moderation-suggestions")
            let left = try await app.send(.GET, "/api/v1/burger-map/place-suggestions", token: admin.token).object()["items"] as? [[String: Any]]
            XCTAssertEqual(left?.count, 0)
            let after = try await boss.get("/admin/moderation")
            XCTAssertFalse(after.text.contains(dismiss), "gone from the page")
            let todayAfter = try await boss.get("/admin")
            XCTAssertEqual(figure(todayAfter.text, "읽을 장소 정보 제안"), "0")
            let audited = try await mapAudit(app)
            XCTAssertEqual(audited.map(\.action), ["burger_map.suggestion.dismiss"])
            XCTAssertEqual(audited.first?.subjectID, suggestion.uuidString)
            XCTAssertEqual(audited.first?.actorID, admin.id)

            _ = try await boss.get("/me")
            let again = try await boss.post(dismiss, form: [:])
            XCTAssertEqual(again.status, .notFound, "set aside once")
            let unknown = try await boss.post("/admin/moderation/suggestions/\(UUID())/dismiss", form: [:])
            XCTAssertEqual(unknown.status, .notFound)
            let stillOne = try await mapAudit(app)
            XCTAssertEqual(stillOne.count, 1)
        }
    }

    /// Issue 61: Today's map figures and the Moderation tab are kept until the map says its
    /// moderation changed (`BurgerMapEnvironment.moderation`): a report shows at once, a row changed
    /// behind the store's back does not until an instance announces a change.
    func testTheConsoleKeepsTheMapsModerationUntilAChangeIsAnnounced() async throws {
        try await withTestApp { app in
            let admin = try await app.member("관리자", admin: true)
            var boss = try await console(app, admin)
            let before = try await boss.get("/admin")
            XCTAssertEqual(figure(before.text, "결정할 신고된 리뷰"), "0")
            let author = try await app.member("작성자")
            let (review, _) = try await reportedReview(app, author: author)
            let today = try await boss.get("/admin")
            XCTAssertEqual(figure(today.text, "결정할 신고된 리뷰"), "1", "a report shows on the next view")
            let page = try await boss.get("/admin/moderation")
            XCTAssertNotNil(entry(page, review))
            // The announcements of the writes above come back from the bus too: let them land first.
            try await Task.sleep(for: .milliseconds(100))
            _ = try await boss.get("/admin")
            _ = try await boss.get("/admin/moderation")

            try await BurgerReport.query(on: app.db).set(\.$dismissedAt, to: Date()).update()
            let keptToday = try await boss.get("/admin")
            XCTAssertEqual(figure(keptToday.text, "결정할 신고된 리뷰"), "1", "kept until told")
            let keptPage = try await boss.get("/admin/moderation")
            XCTAssertNotNil(entry(keptPage, review), "kept until told")
            await app.events.publish("changed", to: app.burgerMapEnvironment.moderation.topic)
            try await Task.sleep(for: .milliseconds(50))
            let toldToday = try await boss.get("/admin")
            XCTAssertEqual(figure(toldToday.text, "결정할 신고된 리뷰"), "0", "another instance's change shows")
            let toldPage = try await boss.get("/admin/moderation")
            XCTAssertNil(entry(toldPage, review))
        }
    }
}
