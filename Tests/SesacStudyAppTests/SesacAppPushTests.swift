import Accounts
import Fluent
import Mates
import Messaging
import MatesTesting
import Notifications
import Platform
import SQLKit
@testable import SesacStudyApp
import WhatWeEatTesting
import XCTVapor

/// 새싹 스터디's "FCM background 상태에서 채팅 알림" (seed 003): a chat line to a phone that has not
/// read it reaches that phone through FCM (a local stand-in that checks the service account's JWT),
/// titled with the sender's nickname and carrying the sender's uid; a token FCM calls gone is
/// forgotten; a busy FCM is tried again when it says.
final class SesacAppPushTests: XCTestCase {
    private func withPushingApp(_ body: (Application, FakeFirebase, FakeFCM, TestClock) async throws -> Void) async throws {
        let fcm = try await FakeFCM.start(projects: ["sesac-test-project"])
        do {
            try await withSesacApp(adjust: { settings in
                settings.push.fcmAccounts = [try! FCMServiceAccount(json: Data(fcm.serviceAccountJSON(project: "sesac-test-project").utf8))]
                settings.push.fcmAPIURL = fcm.url
            }) { app, firebase in
                let clock = app.useTestClock()
                app.workQueue.useClock { clock.now }
                app.workQueue.runsInBackground = false
                try await body(app, firebase, fcm, clock)
            }
        } catch {
            await fcm.stop()
            throw error
        }
        await fcm.stop()
    }

    /// Runs the queue until nothing more is due (a line's check queues its pushes).
    private func settle(_ app: Application) async {
        while await app.workQueue.runDue(app) > 0 {}
    }

    func testAnUnreadChatLineReachesThePhoneThroughFCM() async throws {
        try await withPushingApp { app, firebase, fcm, clock in
            let asker = try SesacAppClient(app: app, firebase: firebase), accepter = try SesacAppClient(app: app, firebase: firebase)
            try await asker.signUp(nick: "보내는사람")
            try await accepter.signUp(nick: "받는사람")
            try await matchApps(asker, accepter)
            await settle(app)
            // The request and the match were pushed too (the steps of a request).
            // (Queued in the same moment: in either order.)
            let steps = Dictionary(uniqueKeysWithValues: fcm.messages.map { ($0.data["kind"] ?? "", $0) })
            XCTAssertEqual(Set(steps.keys), ["mates_request", "mates_matched"])
            XCTAssertEqual(steps["mates_request"]?.token, "fcm-\(accepter.uid)", "asked: the accepter's phone")
            XCTAssertEqual(steps["mates_request"]?.data["uid"], asker.uid, "the app opens the other person by their uid")
            XCTAssertEqual(steps["mates_matched"]?.token, "fcm-\(asker.uid)", "matched: the asker's phone")

            let sent = try await asker.call(.POST, "/v1/chat/\(accepter.uid)", form: "chat=" + "내일 카공 어때요?".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            XCTAssertEqual(sent.status, .ok, sent.text)
            await settle(app)
            XCTAssertEqual(fcm.messages.count, 2, "not before the line had its chance to be read")
            clock.advance(by: app.matesEnvironment.chatNoticeDelay)
            await settle(app)
            let line = try XCTUnwrap(fcm.messages.last)
            XCTAssertEqual(fcm.messages.count, 3)
            XCTAssertEqual(line.project, "sesac-test-project")
            XCTAssertEqual(line.token, "fcm-\(accepter.uid)")
            XCTAssertEqual(line.notification, ["title": "보내는사람", "body": "내일 카공 어때요?"], "a messenger's push: who, then what")
            XCTAssertEqual(line.data["uid"], asker.uid)
            XCTAssertEqual(line.data["kind"], "mates_messages")
            XCTAssertEqual(fcm.refusedJWTs, 0)
        }
    }

    func testAGoneTokenIsForgottenAndABusyFCMIsTriedAgain() async throws {
        try await withPushingApp { app, firebase, fcm, clock in
            let asker = try SesacAppClient(app: app, firebase: firebase), accepter = try SesacAppClient(app: app, firebase: firebase)
            try await asker.signUp(nick: "바쁜날")
            try await accepter.signUp(nick: "지운폰")
            // FCM is busy for the asker's phone once; the accepter's phone uninstalled the app.
            fcm.answer("fcm-\(accepter.uid)", with: [.unregistered])
            fcm.answer("fcm-\(asker.uid)", with: [.unavailable(retryAfter: "60")])
            try await matchApps(asker, accepter)
            await settle(app)
            XCTAssertTrue(fcm.messages.isEmpty)
            let forgotten = try await AppUserStore(database: app.db).appUser(accepter.uid)
            XCTAssertEqual(forgotten?.fcmToken, "", "UNREGISTERED: the token is forgotten")
            clock.advance(by: 59)
            await settle(app)
            XCTAssertTrue(fcm.messages.isEmpty, "Retry-After is honoured")
            clock.advance(by: 1)
            await settle(app)
            XCTAssertEqual(fcm.messages.map(\.token), ["fcm-\(asker.uid)"], "the match reaches the asker on the next try")

            // A new token from the app (`update_fcm_token`) is used from then on.
            let updated = try await accepter.call(.PUT, "/v1/user/update_fcm_token", form: "FCMtoken=fcm-new-\(accepter.uid)")
            XCTAssertEqual(updated.status, .ok)
            _ = try await asker.call(.POST, "/v1/chat/\(accepter.uid)", form: "chat=hello")
            clock.advance(by: app.matesEnvironment.chatNoticeDelay)
            await settle(app)
            XCTAssertEqual(fcm.messages.last?.token, "fcm-new-\(accepter.uid)")
        }
    }

    func testWithoutServiceAccountsNothingIsSentAndReadyzSaysSo() async throws {
        try await withSesacApp { app, firebase in
            let ready = try await app.send(.GET, "/readyz").object()
            let details = try XCTUnwrap(ready["details"] as? [String: String])
            XCTAssertEqual(details["app_push"], "off: no FCM_SERVICE_ACCOUNTS, nothing is sent to the apps")
            app.workQueue.runsInBackground = false
            let asker = try SesacAppClient(app: app, firebase: firebase), accepter = try SesacAppClient(app: app, firebase: firebase)
            try await asker.signUp(nick: "조용한앱")
            try await accepter.signUp(nick: "조용한앱둘")
            try await matchApps(asker, accepter)
            while await app.workQueue.runDue(app) > 0 {}
            let appItems = try await app.rowCount(WorkQueueStore.table) { $0.where("kind", .equal, "push.app") }
            XCTAssertEqual(appItems, 0, "nothing queued for the apps")
        }
    }
}
