@testable import Notifications
import Platform
import WhatWeEatTesting
import XCTVapor

/// `/notifications/settings`: the switches of what is pushed, as a form that works without
/// scripts (the API reads what it saved), the device card the script fills, and who may see it.
final class NotificationSettingsPagesTests: XCTestCase {
    func testTheSwitchesSaveWithoutScriptsAndTheAPIReadsThem() async throws {
        try await withTestApp { app in
            var browser = try await CookieBrowser.signedUp(app, nickname: "미나")
            let inbox = try await browser.get("/notifications")
            XCTAssertTrue(inbox.text.contains(#"href="/notifications/settings""#), "the inbox links to its settings")

            let page = try await browser.get("/notifications/settings")
            XCTAssertEqual(page.status, .ok)
            for field in ["chat", "requests", "social", "orders", "groupGames"] {
                XCTAssertTrue(page.text.contains(#"id="push-\#(field)" name="\#(field)" role="switch" checked="checked""#), "\(field) is on by default")
            }
            XCTAssertTrue(page.text.contains(#"id="push-hideText" name="hideText" role="switch"/>"#), "text is shown by default")
            XCTAssertTrue(page.text.contains(#"id="push-enable""#) && page.text.contains("/js/shared/push-settings.js"), "the device card and its script")
            let config = try pageConfig(page)
            XCTAssertNotNil(config["accessToken"] as? String, "the script calls the push API as the viewer")

            // Only chat stays on, and the text is hidden.
            let saved = try await browser.post("/notifications/settings", form: ["chat": "on", "hideText": "on"])
            XCTAssertEqual(saved.status, .seeOther)
            XCTAssertEqual(saved.headers.first(name: .location), "/notifications/settings?saved=1")
            let after = try await browser.get("/notifications/settings?saved=1")
            XCTAssertTrue(after.text.contains("알림 설정을 저장했어요."))
            XCTAssertTrue(after.text.contains(#"id="push-social" name="social" role="switch"/>"#), "social is off now")
            let token = try XCTUnwrap(try pageConfig(after)["accessToken"] as? String)
            let preferences = try await app.send(.GET, "/api/v1/push/preferences", token: token).object()
            XCTAssertEqual(preferences["chat"] as? Bool, true)
            for field in ["requests", "social", "orders", "groupGames"] { XCTAssertEqual(preferences[field] as? Bool, false, field) }
            XCTAssertEqual(preferences["hideText"] as? Bool, true)
        }
    }

    func testOnlyTheSignedInSeeItAndAFormWithoutItsTokenChangesNothing() async throws {
        try await withTestApp { app in
            let anonymous = try await app.send(.GET, "/notifications/settings")
            XCTAssertEqual(anonymous.status, .seeOther)
            XCTAssertEqual(anonymous.headers.first(name: .location), "/login?next=/notifications/settings")

            var browser = try await CookieBrowser.signedUp(app, nickname: "준호")
            let page = try await browser.get("/notifications/settings")
            let token = try XCTUnwrap(try pageConfig(page)["accessToken"] as? String)
            let forged = try await browser.post("/notifications/settings", form: ["chat": "on"], includeCSRF: false)
            XCTAssertEqual(forged.status, .forbidden)
            let preferences = try await app.send(.GET, "/api/v1/push/preferences", token: token).object()
            XCTAssertEqual(preferences["social"] as? Bool, true, "unchanged")
        }
    }
}
