import Fluent
import MenuGame
@testable import MenuGameApp
import Messaging
import Notifications
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// 우리뭐먹지's plan (seed 000, "Firebase를 통한 Push Notification"): when the host taps 결과확인하기,
/// every player who answered from the app with an FCM token is told — not the host, not a phone
/// without a token — through FCM (a local stand-in checking the service account's JWT).
final class MenuGameAppPushTests: XCTestCase {
    func testClosingARoomTellsEveryAppPlayerOnce() async throws {
        let fcm = try await FakeFCM.start(projects: ["wwe-menu-app"])
        do {
            try await withTestApp(adjust: { settings in
                settings.push.fcmAccounts = [try! FCMServiceAccount(json: Data(fcm.serviceAccountJSON(project: "wwe-menu-app").utf8))]
                settings.push.fcmMenuGameProject = "wwe-menu-app"
                settings.push.fcmAPIURL = fcm.url
            }) { app in
                app.workQueue.runsInBackground = false
                let host = MenuGameCompatTests.host, players = ["player-fcm-token-0001", "player-fcm-token-0002"]
                let created = try await app.send(.POST, "/group?token=\(host)")
                let pin = created.text
                for token in [host] + players + [""] {
                    let submitted = try await app.send(.POST, "/group/\(pin)", raw: MenuGameCompatTests.submission(token: token, pin: pin))
                    XCTAssertEqual(submitted.status, .ok, submitted.text)
                }
                // The second player's phone uninstalled the app since.
                fcm.answer(players[1], with: [.unregistered])
                let result = try await app.send(.GET, "/group/\(pin)/gameresult")
                XCTAssertEqual(result.status, .ok)
                while await app.workQueue.runDue(app) > 0 {}

                let sent = fcm.messages
                XCTAssertEqual(sent.map(\.token), [players[0]], "the host tapped it; a phone without a token cannot be told; a gone token is not")
                XCTAssertEqual(sent.first?.project, "wwe-menu-app")
                XCTAssertEqual(sent.first?.notification["title"], "우리뭐먹지")
                XCTAssertEqual(sent.first?.notification["body"], "결과가 나왔어요! 무엇을 먹을지 확인해 보세요.")
                XCTAssertEqual(sent.first?.data, ["kind": "group_closed", "pin": pin])
                let kept = try await app.db.sql.select().column("push_token").from("menu_group_members")
                    .where("push_token", .isNot, SQLLiteral.null).all(decodingColumn: "push_token", as: String.self)
                XCTAssertEqual(Set(kept), [host, players[0]], "UNREGISTERED: that token is forgotten")

                // Asking again (the app polls the result) tells nobody twice.
                _ = try await app.send(.GET, "/group/\(pin)/gameresult")
                while await app.workQueue.runDue(app) > 0 {}
                XCTAssertEqual(fcm.messages.count, 1)
            }
        } catch {
            await fcm.stop()
            throw error
        }
        await fcm.stop()
    }
}
