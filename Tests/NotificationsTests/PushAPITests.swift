import Crypto
import Fluent
import Messaging
@testable import Notifications
import Platform
import WhatWeEatTesting
import XCTVapor

/// Issue 40, item 2's routes: the VAPID key (one for every instance), a browser's subscription kept
/// only for a listed push service (an endpoint is where the server will send requests), forgotten
/// by its owner, and the preferences.
final class PushAPITests: XCTestCase {
    private let push = "/api/v1/push"

    private func subscription(_ endpoint: String, key: P256.KeyAgreement.PrivateKey = .init()) -> [String: Any] {
        ["endpoint": endpoint, "expirationTime": NSNull(),
         "keys": ["p256dh": key.publicKey.x963Representation.base64URLEncodedString(), "auth": Data(repeating: 3, count: 16).base64URLEncodedString()]]
    }

    /// A JSON body with a null in it (`expirationTime`), as a browser sends it.
    private func send(_ app: Application, _ method: HTTPMethod, _ path: String, _ body: [String: Any], token: String? = nil) async throws -> TestingHTTPResponse {
        try await app.send(method, path, body: try JSONSerialization.data(withJSONObject: body), contentType: "application/json", token: token)
    }

    func testTheVAPIDKeyIsMadeOnceAndSharedByEveryInstance() async throws {
        try await withTestApp { app in
            let first = try await app.send(.GET, "\(push)/vapid-public-key")
            XCTAssertEqual(first.status, .ok)
            let key = try XCTUnwrap(try first.object()["publicKey"] as? String)
            let raw = try XCTUnwrap(Data(base64URLEncoded: key))
            XCTAssertEqual(raw.count, 65)
            XCTAssertEqual(raw.first, 4, "uncompressed, as applicationServerKey takes it")
            let again = try await app.send(.GET, "\(push)/vapid-public-key").object()["publicKey"] as? String
            XCTAssertEqual(again, key)
            // Another instance on the same database reads the same key.
            let otherInstance = try await PushKeys(settings: PushSettings()).vapid(app.db, now: Date())
            XCTAssertEqual(otherInstance.publicKey, key)
        }
        let configured = P256.Signing.PrivateKey()
        try await withTestApp(adjust: { $0.push.vapidPrivateKey = configured.rawRepresentation.base64URLEncodedString() }) { app in
            let key = try await app.send(.GET, "\(push)/vapid-public-key").object()["publicKey"] as? String
            XCTAssertEqual(key, configured.publicKey.x963Representation.base64URLEncodedString(), "VAPID_PRIVATE_KEY wins")
        }
    }

    func testOnlyListedPushServicesAreSubscribedAndOnlyTheOwnerUnsubscribes() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나"), joon = try await app.member("준호")
            let fcm = "https://fcm.googleapis.com/fcm/send/abc:def"
            let anonymous = try await send(app, .POST, "\(push)/subscriptions", subscription(fcm))
            XCTAssertEqual(anonymous.status, .unauthorized)

            for endpoint in ["http://127.0.0.1:9/push", "https://169.254.169.254/latest", "https://fcm.googleapis.com.evil.example/x",
                             "https://user:pw@fcm.googleapis.com/x", "http://fcm.googleapis.com/x", "https://notify.windows.com.evil/x",
                             "not a url", "https://" + String(repeating: "a", count: 1_100) + ".example/x"] {
                let refused = try await send(app, .POST, "\(push)/subscriptions", subscription(endpoint), token: mina.token)
                XCTAssertEqual(refused.status, .unprocessableEntity, endpoint)
                XCTAssertEqual(refused.errorCode, "invalid_push_endpoint", endpoint)
            }
            var badKeys = subscription(fcm)
            badKeys["keys"] = ["p256dh": "AAAA", "auth": "BBBB"]
            let refusedKeys = try await send(app, .POST, "\(push)/subscriptions", badKeys, token: mina.token)
            XCTAssertEqual(refusedKeys.errorCode, "invalid_push_keys")
            let malformed = try await app.send(.POST, "\(push)/subscriptions", json: ["endpoint": fcm], token: mina.token)
            XCTAssertEqual(malformed.status, .badRequest)
            let stored = try await app.rowCount(PushStore.subscriptions)
            XCTAssertEqual(stored, 0, "nothing refused was kept")

            let browser = P256.KeyAgreement.PrivateKey()
            for endpoint in [fcm, "https://db5p.notify.windows.com/w/?token=1", "https://web.push.apple.com/QGuQ"] {
                let kept = try await send(app, .POST, "\(push)/subscriptions", subscription(endpoint, key: browser), token: mina.token)
                XCTAssertEqual(kept.status, .created, endpoint)
            }
            let minas = try await PushStore(database: app.db).subscriptions(of: mina.id)
            XCTAssertEqual(Set(minas.map(\.endpoint)).count, 3)

            // Someone who learnt 미나's endpoint but holds other keys cannot take it over (probe 2026-12-05 §13).
            let taken = try await send(app, .POST, "\(push)/subscriptions", subscription(fcm), token: joon.token)
            XCTAssertEqual(taken.status, .conflict)
            XCTAssertEqual(taken.errorCode, "push_endpoint_taken")
            let stillHers = try await PushStore(database: app.db).subscriptions(of: mina.id)
            XCTAssertEqual(stillHers.count, 3)

            // The same browser (its own keys), now signed in as 준호: the endpoint is his, not doubled.
            let moved = try await send(app, .POST, "\(push)/subscriptions", subscription(fcm, key: browser), token: joon.token)
            XCTAssertEqual(moved.status, .created)
            let joons = try await PushStore(database: app.db).subscriptions(of: joon.id)
            XCTAssertEqual(joons.map(\.endpoint), [fcm])
            let minasNow = try await PushStore(database: app.db).subscriptions(of: mina.id)
            XCTAssertEqual(minasNow.count, 2)

            // 미나 cannot forget 준호's browser; he can.
            let notHers = try await app.send(.DELETE, "\(push)/subscriptions", json: ["endpoint": fcm], token: mina.token)
            XCTAssertEqual(notHers.status, .noContent)
            let stillHis = try await PushStore(database: app.db).subscriptions(of: joon.id)
            XCTAssertEqual(stillHis.count, 1)
            let his = try await app.send(.DELETE, "\(push)/subscriptions", json: ["endpoint": fcm], token: joon.token)
            XCTAssertEqual(his.status, .noContent)
            let gone = try await PushStore(database: app.db).subscriptions(of: joon.id)
            XCTAssertTrue(gone.isEmpty)
        }
    }

    func testATestReceiverIsAcceptedOnlyWhenListed() async throws {
        try await withTestApp(adjust: { $0.push.services = PushSettings.publicServices + ["http://127.0.0.1:8099"] }) { app in
            let mina = try await app.member("미나")
            let local = try await send(app, .POST, "\(push)/subscriptions", subscription("http://127.0.0.1:8099/push/1"), token: mina.token)
            XCTAssertEqual(local.status, .created)
            let otherPort = try await send(app, .POST, "\(push)/subscriptions", subscription("http://127.0.0.1:8100/push/1"), token: mina.token)
            XCTAssertEqual(otherPort.errorCode, "invalid_push_endpoint")
        }
    }

    func testPreferencesStartOnAndChangeAsTold() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let first = try await app.send(.GET, "\(push)/preferences", token: mina.token).object()
            XCTAssertEqual(first as NSDictionary, ["chat": true, "requests": true, "social": true, "orders": true, "groupGames": true, "hideText": false,
                                                   "account": true])
            let changed = try await app.send(.PUT, "\(push)/preferences",
                                             json: ["chat": true, "requests": false, "social": false, "orders": true, "groupGames": false, "hideText": true],
                                             token: mina.token)
            XCTAssertEqual(changed.status, .ok, changed.text)
            let read = try await app.send(.GET, "\(push)/preferences", token: mina.token).object()
            XCTAssertEqual(read as NSDictionary, ["chat": true, "requests": false, "social": false, "orders": true, "groupGames": false, "hideText": true,
                                                  "account": true])
            let partial = try await app.send(.PUT, "\(push)/preferences", json: ["chat": false], token: mina.token)
            XCTAssertEqual(partial.status, .badRequest, "the five switches are required")
            let unchanged = try await app.send(.GET, "\(push)/preferences", token: mina.token).object()["chat"] as? Bool
            XCTAssertEqual(unchanged, true)
            let anonymous = try await app.send(.GET, "\(push)/preferences")
            XCTAssertEqual(anonymous.status, .unauthorized)
        }
    }

    func testPushServicesSettingIsReadAndChecked() throws {
        func load(_ values: [String: String]) throws -> PushSettings {
            try PushSettings.load(from: EnvironmentVariables(values: values, appEnvironment: .development))
        }
        XCTAssertEqual(try load([:]).services, PushSettings.publicServices)
        let listed = try load(["PUSH_SERVICES": "https://fcm.googleapis.com, http://127.0.0.1:8099"])
        XCTAssertTrue(listed.accepts("http://127.0.0.1:8099/x"))
        XCTAssertFalse(listed.accepts("https://web.push.apple.com/x"), "only what is listed")
        for bad in ["ftp://push.example", "https://push.example/path", "push.example"] {
            XCTAssertThrowsError(try load(["PUSH_SERVICES": bad]), bad)
        }
        XCTAssertThrowsError(try load(["VAPID_PRIVATE_KEY": "short"]))
        XCTAssertThrowsError(try load(["VAPID_SUBJECT": "ops@example.com"]))
        XCTAssertEqual(try load(["VAPID_SUBJECT": "mailto:ops@example.com"]).vapidSubject, "mailto:ops@example.com")

        // FCM for the apps: none by default; keys that are not service accounts stop the start,
        // and the error never shows them.
        XCTAssertTrue(try load([:]).fcmAccounts.isEmpty)
        XCTAssertEqual(try load([:]).fcmAPIURL, "https://fcm.googleapis.com")
        for bad in [#"{"project_id": "p"}"#, "[1, 2]", "/no/such/key.json"] {
            XCTAssertThrowsError(try load(["FCM_SERVICE_ACCOUNTS": bad]), bad) { error in
                XCTAssertFalse(String(describing: error).contains(bad), "the setting's value is not printed")
            }
        }
        XCTAssertThrowsError(try load(["FCM_API_URL": "fcm.googleapis.com"]))
        XCTAssertEqual(try load(["FCM_API_URL": "http://127.0.0.1:8123"]).fcmAPIURL, "http://127.0.0.1:8123")
    }

    /// Probe 2026-12-05, §13: subscriptions (each a browser the server calls for every entry) and
    /// preference changes had no rate. Per account, 40 subscriptions kept and 60 changes an hour;
    /// then 429 with `Retry-After` and a message in the person's language. A refused request does
    /// not use the budget, and another account has its own.
    func testSubscriptionsAndPreferenceChangesHaveAnHourlyBudgetPerAccount() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나"), joon = try await app.member("준호")
            let fcm = "https://fcm.googleapis.com/fcm/send/"
            let refused = try await send(app, .POST, "\(push)/subscriptions", subscription("http://127.0.0.1:9/push"), token: mina.token)
            XCTAssertEqual(refused.status, .unprocessableEntity)
            for browser in 0..<40 {
                let kept = try await send(app, .POST, "\(push)/subscriptions", subscription(fcm + "mina\(browser)"), token: mina.token)
                XCTAssertEqual(kept.status, .created, "\(browser): \(kept.body.string)")
            }
            let over = try await app.send(.POST, "\(push)/subscriptions",
                                          raw: String(decoding: try JSONSerialization.data(withJSONObject: subscription(fcm + "mina41")), as: UTF8.self),
                                          token: mina.token, headers: ["Accept-Language": "en"])
            XCTAssertEqual(over.status, .tooManyRequests, over.body.string)
            XCTAssertEqual(over.errorCode, "too_many_push_subscriptions")
            XCTAssertEqual(over.errorMessage?.contains("Try again in 60 minutes"), true, over.body.string)
            let wait = try XCTUnwrap(over.headers.first(name: "Retry-After").flatMap(Int.init))
            XCTAssertTrue((3500...3600).contains(wait), "\(wait)")
            let other = try await send(app, .POST, "\(push)/subscriptions", subscription(fcm + "joon"), token: joon.token)
            XCTAssertEqual(other.status, .created, "another account's budget")

            let switches = ["chat": true, "requests": true, "social": true, "orders": true, "groupGames": true]
            for change in 0..<60 {
                let saved = try await app.send(.PUT, "\(push)/preferences", json: switches, token: mina.token)
                XCTAssertEqual(saved.status, .ok, "\(change): \(saved.body.string)")
            }
            let tooMany = try await app.send(.PUT, "\(push)/preferences", json: switches, token: mina.token)
            XCTAssertEqual(tooMany.status, .tooManyRequests, tooMany.body.string)
            XCTAssertEqual(tooMany.errorCode, "too_many_push_preference_changes")
            XCTAssertNotNil(tooMany.headers.first(name: "Retry-After"))
            XCTAssertEqual(tooMany.errorMessage?.contains("분 뒤에"), true, "Korean by default: \(tooMany.body.string)")
        }
    }
}
