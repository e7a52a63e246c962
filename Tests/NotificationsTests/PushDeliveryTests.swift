import Crypto
import Fluent
import Messaging
import NIOConcurrencyHelpers
@testable import Notifications
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Issue 40, item 2: an inbox entry reaches the recipient's browsers as an encrypted, VAPID-signed
/// push — in their language, with a topic and an urgency — from the durable queue; a gone
/// subscription (410) is forgotten, a busy service (503, `Retry-After`) gets the message on its
/// third try, and a switched-off kind is not pushed.
final class PushDeliveryTests: XCTestCase {
    private let push = "/api/v1/push"

    func testTheTestReceiverDecryptsTheRFCsExample() throws {
        let receiver = PushReceiverKeys(privateKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: try XCTUnwrap(Data(base64URLEncoded: "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"))),
                                        auth: try XCTUnwrap(Data(base64URLEncoded: "BTBZMqHH6r4Tts7J_aSIgg")))
        let body = try XCTUnwrap(Data(base64URLEncoded: "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_"
                                                        + "yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"))
        XCTAssertEqual(String(decoding: try receiver.decrypt(body), as: UTF8.self), "When I grow up, I want to be a watermelon")
    }

    private func subscribe(_ app: Application, _ member: Member, _ keys: PushReceiverKeys, _ endpoint: String) async throws {
        let body = try JSONSerialization.data(withJSONObject: keys.subscription(endpoint))
        let response = try await app.send(.POST, "\(push)/subscriptions", body: body, contentType: "application/json", token: member.token)
        XCTAssertEqual(response.status, .created, response.text)
    }

    /// Runs the queue until nothing more is due (a notice queues its deliveries).
    private func settle(_ app: Application) async {
        while await app.workQueue.runDue(app) > 0 {}
    }

    func testAnEntryIsPushedEncryptedAndSignedToEveryBrowserOfTheRecipient() async throws {
        let service = try await FakePushService.start()
        do {
            try await withTestApp(adjust: { $0.push.services = PushSettings.publicServices + [service.url] }) { app in
                let clock = TestClock()
                app.workQueue.useClock { clock.now }
                app.workQueue.runsInBackground = false
                let mina = try await app.member("미나"), joon = try await app.member("준호")
                let phone = PushReceiverKeys(), laptop = PushReceiverKeys()
                try await subscribe(app, joon, phone, "\(service.url)/push/phone")
                try await subscribe(app, joon, laptop, "\(service.url)/push/laptop")
                service.answer("laptop", with: [(.gone, nil)])
                let review = UUID()
                let inbox = NotificationStore(database: app.db, application: app)
                try await inbox.post(NotificationDraft(recipient: joon.id, actor: mina.id, service: "burger-map", kind: "review_commented",
                                                       subjectID: review, link: "/map/reviews/\(review.uuidString.lowercased())", excerpt: "저도 가 볼게요!"))
                await settle(app)

                let delivered = try XCTUnwrap(service.requests(to: "phone").first)
                XCTAssertEqual(delivered.headers.first(name: "Content-Encoding"), "aes128gcm")
                XCTAssertEqual(delivered.headers.first(name: "Content-Type"), "application/octet-stream")
                XCTAssertEqual(delivered.headers.first(name: "TTL"), String(3 * 24 * 3600))
                XCTAssertEqual(delivered.headers.first(name: "Urgency"), "normal")
                let topic = try XCTUnwrap(delivered.headers.first(name: "Topic"))
                XCTAssertEqual(topic.count, 32, "at most 32 base64url characters")

                // The VAPID token: signed by the key the API hands browsers, for this service's origin.
                let publicKey = try await app.send(.GET, "\(push)/vapid-public-key").object()["publicKey"] as? String
                let authorization = try XCTUnwrap(delivered.headers.first(name: "Authorization"))
                XCTAssertTrue(authorization.hasPrefix("vapid t="), authorization)
                XCTAssertTrue(authorization.hasSuffix(", k=\(try XCTUnwrap(publicKey))"), authorization)
                let token = String(authorization.dropFirst("vapid t=".count).prefix { $0 != "," }).split(separator: ".").map(String.init)
                let key = try P256.Signing.PublicKey(x963Representation: try XCTUnwrap(Data(base64URLEncoded: try XCTUnwrap(publicKey))))
                let signature = try P256.Signing.ECDSASignature(rawRepresentation: try XCTUnwrap(Data(base64URLEncoded: token[2])))
                XCTAssertTrue(key.isValidSignature(signature, for: Data((token[0] + "." + token[1]).utf8)))
                let claims = try XCTUnwrap(JSONSerialization.jsonObject(with: try XCTUnwrap(Data(base64URLEncoded: token[1]))) as? [String: Any])
                XCTAssertEqual(claims["aud"] as? String, service.url)

                // What the phone's service worker reads, in 준호's language (Korean by default).
                let payload = try XCTUnwrap(JSONSerialization.jsonObject(with: try phone.decrypt(delivered.body)) as? [String: String])
                XCTAssertEqual(payload["title"], "진짜 버거 지도")
                XCTAssertEqual(payload["body"], "미나님이 내 리뷰에 댓글을 남겼어요.\n저도 가 볼게요!")
                XCTAssertEqual(payload["url"], "/map/reviews/\(review.uuidString.lowercased())")
                XCTAssertEqual(payload["kind"], "review_commented")
                XCTAssertThrowsError(try laptop.decrypt(delivered.body), "only the phone's keys open the phone's message")

                // The laptop's push service said 410: that subscription is forgotten.
                XCTAssertEqual(service.requests(to: "laptop").count, 1)
                let kept = try await PushStore(database: app.db).subscriptions(of: joon.id)
                XCTAssertEqual(kept.map(\.endpoint), ["\(service.url)/push/phone"])

                // A busy service: 503 with Retry-After twice, then the message arrives on the third try.
                service.answer("phone", with: [(.serviceUnavailable, "120"), (.serviceUnavailable, "120")])
                try await inbox.post(NotificationDraft(recipient: joon.id, actor: mina.id, service: "burger-map", kind: "review_liked",
                                                       subjectID: review, once: true))
                await settle(app)
                XCTAssertEqual(service.requests(to: "phone").count, 2)
                clock.advance(by: 119)
                await settle(app)
                XCTAssertEqual(service.requests(to: "phone").count, 2, "Retry-After is honoured")
                clock.advance(by: 1)
                await settle(app)
                XCTAssertEqual(service.requests(to: "phone").count, 3)
                clock.advance(by: 120)
                await settle(app)
                XCTAssertEqual(service.requests(to: "phone").count, 4, "the third try")
                let liked = try XCTUnwrap(JSONSerialization.jsonObject(with: try phone.decrypt(service.requests(to: "phone")[3].body)) as? [String: String])
                XCTAssertEqual(liked["body"], "미나님이 내 리뷰를 좋아해요.")
                let left = try await app.rowCount(WorkQueueStore.table)
                XCTAssertEqual(left, 0)

                // Switched off: a follow is social, and 준호 turned social pushes off.
                let off = try await app.send(.PUT, "\(push)/preferences",
                                             json: ["chat": true, "requests": true, "social": false, "orders": true, "groupGames": true], token: joon.token)
                XCTAssertEqual(off.status, .ok)
                try await inbox.post(NotificationDraft(recipient: joon.id, actor: mina.id, service: "burger-map", kind: "followed", once: true))
                await settle(app)
                XCTAssertEqual(service.requests(to: "phone").count, 4, "not pushed")
                let entries = try await inbox.unreadCount(for: joon.id)
                XCTAssertEqual(entries, 3, "still in the inbox")

                // The operator narrowed PUSH_SERVICES: a stored endpoint outside it is never called again.
                _ = try await app.send(.PUT, "\(push)/preferences",
                                       json: ["chat": true, "requests": true, "social": true, "orders": true, "groupGames": true], token: joon.token)
                app.settings.push.services = PushSettings.publicServices
                try await inbox.post(NotificationDraft(recipient: joon.id, actor: mina.id, service: "burger-map", kind: "review_commented",
                                                       subjectID: UUID(), excerpt: "또 올게요"))
                await settle(app)
                XCTAssertEqual(service.requests(to: "phone").count, 4, "not called")
                let forgotten = try await PushStore(database: app.db).subscriptions(of: joon.id)
                XCTAssertTrue(forgotten.isEmpty, "and forgotten")
            }
        } catch {
            await service.stop()
            throw error
        }
        await service.stop()
    }

    /// Signed out on a shared computer: that browser's subscription belonged to the session, so
    /// nothing more goes to it (and it is forgotten); the person's other browsers still hear.
    func testABrowserWhoseSessionEndedHearsNothingMore() async throws {
        let service = try await FakePushService.start()
        do {
            try await withTestApp(adjust: { $0.push.services = [service.url] }) { app in
                app.workQueue.runsInBackground = false
                let mina = try await app.member("미나"), joon = try await app.member("준호")
                let sharedComputer = try await app.logIn(try XCTUnwrap(joon.email))
                let shared = Member(id: joon.id, token: sharedComputer.accessToken, nickname: joon.nickname)
                try await subscribe(app, shared, PushReceiverKeys(), "\(service.url)/push/shared")
                try await subscribe(app, joon, PushReceiverKeys(), "\(service.url)/push/phone")
                let signedOut = try await app.send(.POST, "/api/v1/auth/logout", token: shared.token)
                XCTAssertEqual(signedOut.status, .noContent)

                let inbox = NotificationStore(database: app.db, application: app)
                try await inbox.post(NotificationDraft(recipient: joon.id, actor: mina.id, service: "burger-map", kind: "followed", once: true))
                await settle(app)
                XCTAssertEqual(service.requests(to: "phone").count, 1)
                XCTAssertEqual(service.requests(to: "shared").count, 0, "the signed-out browser is not called")
                let kept = try await PushStore(database: app.db).subscriptions(of: joon.id)
                XCTAssertEqual(kept.map(\.endpoint), ["\(service.url)/push/phone"], "and its subscription is forgotten")
            }
        } catch {
            await service.stop()
            throw error
        }
        await service.stop()
    }

    /// What the browser's service worker was shown, message by message.
    private func bodies(_ service: FakePushService, _ id: String, _ keys: PushReceiverKeys) throws -> [String?] {
        try service.requests(to: id).map { request in
            (try JSONSerialization.jsonObject(with: try keys.decrypt(request.body)) as? [String: String])?["body"]
        }
    }

    /// Waits (up to 30 s) until `condition` holds.
    private func waitFor(_ what: String, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<600 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTFail("waited 30 s for \(what)")
    }

    /// Probe 2026-12-05, finding 4: a push retried after the comment it quoted was deleted sent the
    /// deleted words (rendered when queued, kept in the queue for up to a day). A delivery now names
    /// its entry and is rendered when sent: the queue holds no words, a blanked quote stays blank,
    /// `hideText` switched on since is honoured, a withdrawn entry is not pushed, and an item queued
    /// in the old shape before an upgrade is rendered afresh the same way.
    func testARetriedPushSaysWhatTheInboxSaysWhenItIsSent() async throws {
        let service = try await FakePushService.start()
        do {
            try await withTestApp(adjust: { $0.push.services = [service.url] }) { app in
                let clock = TestClock()
                app.workQueue.useClock { clock.now }
                app.workQueue.runsInBackground = false
                let mina = try await app.member("미나"), joon = try await app.member("준호")
                let phone = PushReceiverKeys()
                try await subscribe(app, joon, phone, "\(service.url)/push/phone")
                let inbox = NotificationStore(database: app.db, application: app)
                let commented = "미나님이 내 리뷰에 댓글을 남겼어요."

                // Busy at the first try; the comment is deleted before the retry.
                service.answer("phone", with: [(.serviceUnavailable, "60")])
                let review = UUID()
                try await inbox.post(NotificationDraft(recipient: joon.id, actor: mina.id, service: "burger-map", kind: "review_commented",
                                                       subjectID: review, link: "/map/reviews/\(review)", excerpt: "ERASED 010-7777-8888"))
                await settle(app)
                XCTAssertEqual(service.requests(to: "phone").count, 1)
                let queued = try await app.db.sql.select().column("payload").from(WorkQueueStore.table).all(decodingColumn: "payload", as: String.self)
                XCTAssertEqual(queued.count, 1, "the retry waits")
                XCTAssertFalse(queued.contains { $0.contains("010-7777") || $0.contains("ERASED") }, "the queue holds ids, not words: \(queued)")
                try await inbox.forgetWords(of: mina.id, kind: "review_commented", subject: review)
                clock.advance(by: 60)
                await settle(app)
                XCTAssertEqual(try bodies(service, "phone", phone), [commented + "\nERASED 010-7777-8888", commented],
                               "the first try quoted the comment; the retry, after it was deleted, quotes nothing")

                // `hideText` switched on after the entry was queued.
                service.answer("phone", with: [(.serviceUnavailable, "60")])
                try await inbox.post(NotificationDraft(recipient: joon.id, actor: mina.id, service: "burger-map", kind: "review_commented",
                                                       subjectID: UUID(), excerpt: "오늘 저녁 7시에 만나요"))
                await settle(app)
                let hide = try await app.send(.PUT, "\(push)/preferences", json: ["chat": true, "requests": true, "social": true, "orders": true,
                                                                                 "groupGames": true, "hideText": true], token: joon.token)
                XCTAssertEqual(hide.status, .ok, hide.text)
                clock.advance(by: 60)
                await settle(app)
                XCTAssertEqual(try bodies(service, "phone", phone).suffix(2), [commented + "\n오늘 저녁 7시에 만나요", commented], "hidden at the retry")

                // An entry withdrawn (its review deleted) before the retry is not pushed at all.
                service.answer("phone", with: [(.serviceUnavailable, "60")])
                let doomed = UUID()
                try await inbox.post(NotificationDraft(recipient: joon.id, actor: mina.id, service: "burger-map", kind: "review_liked",
                                                       subjectID: doomed, once: true))
                await settle(app)
                XCTAssertEqual(service.requests(to: "phone").count, 5)
                try await inbox.withdraw(subject: doomed)
                clock.advance(by: 60)
                await settle(app)
                XCTAssertEqual(service.requests(to: "phone").count, 5, "not pushed")
                var left = try await app.rowCount(WorkQueueStore.table)
                XCTAssertEqual(left, 0, "and not kept")

                // Queued before the upgrade, in the old shape (the text rendered in it): its entry is
                // read afresh; one whose topic names no entry is dropped.
                let hideOff = try await app.send(.PUT, "\(push)/preferences", json: ["chat": true, "requests": true, "social": true, "orders": true,
                                                                                    "groupGames": true, "hideText": false], token: joon.token)
                XCTAssertEqual(hideOff.status, .ok, hideOff.text)
                let upgraded = UUID()
                try await inbox.post(NotificationDraft(recipient: joon.id, actor: mina.id, service: "burger-map", kind: "review_commented",
                                                       subjectID: upgraded, excerpt: "OLD-SHAPE 010-1111-2222"))
                let found = try await app.db.sql.select().column("id").from("notifications")
                    .where("subject_id", .equal, upgraded).first(decodingColumn: "id", as: UUID.self)
                let entry = try XCTUnwrap(found)
                try await app.deleteRows(of: WorkQueueStore.table)
                try await inbox.forgetWords(of: mina.id, kind: "review_commented", subject: upgraded)
                struct OldDeliver: Encodable { let subscription: UUID; let payload, urgency: String; let timeToLive: Int; let topic: String }
                let subscriptions = try await PushStore(database: app.db).subscriptions(of: joon.id)
                let subscription = try XCTUnwrap(subscriptions.first).id
                let oldPayload = try JSONSerialization.data(withJSONObject: ["title": "진짜 버거 지도", "body": commented + "\nOLD-SHAPE 010-1111-2222",
                                                                             "url": "/notifications", "tag": "x", "kind": "review_commented"])
                for topic in [entry.uuidString.replacingOccurrences(of: "-", with: "").lowercased(), "0123456789abcdef"] {
                    try await app.workQueue.enqueue(PushDeliveries.deliverKind,
                                                    OldDeliver(subscription: subscription, payload: String(decoding: oldPayload, as: UTF8.self),
                                                               urgency: "normal", timeToLive: 3 * 24 * 3600, topic: topic), on: app.db)
                }
                await settle(app)
                XCTAssertEqual(service.requests(to: "phone").count, 6, "the one naming an entry is sent")
                XCTAssertEqual(try bodies(service, "phone", phone).last, commented, "rendered from the inbox as it is")
                left = try await app.rowCount(WorkQueueStore.table)
                XCTAssertEqual(left, 0, "both are done")
            }
        } catch {
            await service.stop()
            throw error
        }
        await service.stop()
    }

    /// Probe 2026-12-05, finding 11: a subscription the push service refused (400, 401, 403, 413)
    /// was kept and tried for every entry, for ever. Now 400 and 403 (malformed, or another
    /// server's) forget it at once, other refusals after three in a row, and a success in between
    /// starts the count again.
    func testASubscriptionThePushServiceRefusesForGoodIsForgotten() async throws {
        let service = try await FakePushService.start()
        do {
            try await withTestApp(adjust: { $0.push.services = [service.url] }) { app in
                app.workQueue.runsInBackground = false
                let mina = try await app.member("미나"), joon = try await app.member("준호")
                for browser in ["malformed", "foreign", "large", "flaky"] {
                    try await subscribe(app, joon, PushReceiverKeys(), "\(service.url)/push/\(browser)")
                }
                service.answer("malformed", with: [(.badRequest, nil)])
                service.answer("foreign", with: [(.forbidden, nil)])
                service.answer("large", with: Array(repeating: (.payloadTooLarge, nil), count: 3))
                service.answer("flaky", with: [(.unauthorized, nil), (.unauthorized, nil), (.created, nil), (.unauthorized, nil), (.unauthorized, nil)])
                let inbox = NotificationStore(database: app.db, application: app)
                var kept: [[String]] = []
                for _ in 0..<5 {
                    try await inbox.post(NotificationDraft(recipient: joon.id, actor: mina.id, service: "burger-map", kind: "review_liked",
                                                           subjectID: UUID(), once: true))
                    await settle(app)
                    kept.append(try await PushStore(database: app.db).subscriptions(of: joon.id).map { String($0.endpoint.split(separator: "/").last ?? "") }.sorted())
                }
                XCTAssertEqual(kept, [["flaky", "large"], ["flaky", "large"], ["flaky"], ["flaky"], ["flaky"]],
                               "400 and 403 at once; 413 at the third in a row; 401, 401, 201, 401, 401 never three in a row")
                XCTAssertEqual(["malformed", "foreign", "large", "flaky"].map { service.requests(to: $0).count }, [1, 1, 3, 5])
                let left = try await app.rowCount(WorkQueueStore.table)
                XCTAssertEqual(left, 0)
            }
        } catch {
            await service.stop()
            throw error
        }
        await service.stop()
    }

    /// Probe 2026-12-05, finding 10: the queue ran a batch of 50 and waited for all of it, so 60
    /// deliveries to a push service answering after 30 s held every other item (a like reached
    /// another browser after 25.8 s). Now a slot is filled again as it frees (and work due meanwhile
    /// is claimed while the slow items run), and one push service gets a few requests at once: the
    /// other browser hears while the slow deliveries are still under way, none of them failed yet.
    func testASlowPushServiceHoldsNoOtherWork() async throws {
        let slow = try await FakePushService.start(), quick = try await FakePushService.start()
        do {
            try await withTestApp(adjust: { $0.push.services = [slow.url, quick.url] }) { app in
                let clock = TestClock()
                app.workQueue.useClock { clock.now }
                app.workQueue.runsInBackground = false
                let mina = try await app.member("미나"), joon = try await app.member("준호")
                for browser in 0..<20 { try await subscribe(app, joon, PushReceiverKeys(), "\(slow.url)/push/joon\(browser)") }
                try await subscribe(app, mina, PushReceiverKeys(), "\(quick.url)/push/mina")
                slow.answerSlowly()
                let inbox = NotificationStore(database: app.db, application: app)
                for _ in 0..<3 {
                    try await inbox.post(NotificationDraft(recipient: joon.id, actor: mina.id, service: "burger-map", kind: "review_liked",
                                                           subjectID: UUID(), once: true))
                }
                let running = Task { [app] in while await app.workQueue.runDue(app) > 0 {} }

                // 60 deliveries for the slow service: a few of them sent, the rest put off.
                try await waitFor("the slow service to be called") { slow.held > 0 }
                // Meanwhile 준호 likes 미나's review: her browser is at another push service.
                try await inbox.post(NotificationDraft(recipient: mina.id, actor: joon.id, service: "burger-map", kind: "review_liked",
                                                       subjectID: UUID(), once: true))
                try await waitFor("mina's push") { quick.requests(to: "mina").count == 1 }
                let stillHeld = slow.held
                let failed = try await app.rowCount(WorkQueueStore.table) { $0.where("attempts", .greaterThan, 0) }
                XCTAssertGreaterThan(stillHeld, 0, "the slow service had not answered")
                XCTAssertLessThanOrEqual(stillHeld, PushDeliveries.sendingPerOrigin, "one push service gets a few requests at once")
                XCTAssertEqual(failed, 0, "no slow delivery had given up waiting (timed out) yet")

                // The slow service answers: all 60 get through, a few at a time.
                slow.answerNow()
                await running.value
                for _ in 0..<40 {
                    guard try await app.rowCount(WorkQueueStore.table) > 0 else { break }
                    clock.advance(by: 60)
                    await settle(app)
                }
                let left = try await app.rowCount(WorkQueueStore.table)
                XCTAssertEqual(left, 0)
                XCTAssertGreaterThanOrEqual(slow.requests.count, 60)
                XCTAssertEqual(quick.requests.count, 1)
            }
        } catch {
            await slow.stop()
            await quick.stop()
            throw error
        }
        await slow.stop()
        await quick.stop()
    }
}
