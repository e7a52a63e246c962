import Crypto
import Messaging
@testable import Notifications
@testable import Platform
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
}
