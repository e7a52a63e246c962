import Fluent
@testable import MenuGame
import Platform
import WhatWeEatTesting
import XCTVapor

/// Issue 41: the menu game's menus in the console's Catalog tab. Administrators change a menu's
/// names and emoji, take it out of games and bring it back, each through the API's rules and in
/// the audit log (the API's own edits too); everyone else gets 404.
final class MenuGameAdminPagesTests: XCTestCase {
    func testMenusAreEditedRetiredAndBroughtBackFromTheConsoleEachAudited() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin("boss@example.com", nickname: "사장님").accessToken
            let member = try await app.member("손님")
            var someone = try await CookieBrowser.signedIn(app, as: member.email)
            _ = try await someone.get("/me")
            for path in ["/admin/catalog/menus", "/admin/catalog/menus/kimchi-jjigae"] {
                let page = try await someone.get(path)
                XCTAssertEqual(page.status, .notFound, path)
            }
            let forced = try await someone.post("/admin/catalog/menus/kimchi-jjigae", form: ["ko": "바뀐 이름"])
            XCTAssertEqual(forced.status, .notFound)

            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            let list = try await boss.get("/admin/catalog/menus")
            XCTAssertTrue(list.text.contains(#"id="menu-kimchi-jjigae""#) && list.text.contains("김치찌개"))
            XCTAssertTrue(list.text.contains(#"id="catalog-nav-menus""#), "the Catalog tab's two lists")

            let changed = try await boss.post("/admin/catalog/menus/kimchi-jjigae", form: ["ko": "묵은지 김치찌개", "en": "Aged kimchi stew", "ja": "キムチチゲ", "emoji": "🍲"])
            XCTAssertEqual(changed.status, .seeOther, changed.text)
            var menu = try await app.send(.GET, "/api/v1/menu-game/menus/kimchi-jjigae", headers: ["Accept-Language": "ko"]).object()
            XCTAssertEqual(menu["name"] as? String ?? (menu["name"] as? [String: Any])?["ko"] as? String, "묵은지 김치찌개")

            let empty = try await boss.post("/admin/catalog/menus/kimchi-jjigae", form: ["ko": " ", "en": "Aged kimchi stew", "ja": "キムチチゲ", "emoji": "🍲"])
            XCTAssertEqual(empty.status, .unprocessableEntity, "a menu needs a name in every language")
            XCTAssertTrue(empty.text.contains("form-error"))

            let retired = try await boss.post("/admin/catalog/menus/kimchi-jjigae/retire", form: [:])
            XCTAssertEqual(retired.status, .seeOther)
            let gone = try await app.send(.GET, "/api/v1/menu-game/menus/kimchi-jjigae")
            XCTAssertEqual(gone.status, .notFound, "out of games")
            let back = try await boss.post("/admin/catalog/menus/kimchi-jjigae", form: ["ko": "김치찌개", "en": "Kimchi stew", "ja": "キムチチゲ", "emoji": "🍲"])
            XCTAssertEqual(back.status, .seeOther)
            menu = try await app.send(.GET, "/api/v1/menu-game/menus/kimchi-jjigae").object()
            XCTAssertEqual(menu["id"] as? String, "kimchi-jjigae", "back in games")

            // The API's own edits are audited too.
            let viaAPI = try await app.send(.DELETE, "/api/v1/menu-game/menus/bibimbap", token: admin)
            XCTAssertEqual(viaAPI.status, .noContent)
            let actions = try await AuditLog(database: app.db).page(CursorPageRequest()).items.map(\.action)
            XCTAssertEqual(actions, ["menu_game.menu.retire", "menu_game.menu.add", "menu_game.menu.retire", "menu_game.menu.change"])
            let entries = try await AuditLog(database: app.db).page(CursorPageRequest()).items
            XCTAssertEqual(entries.last?.before?["ko"], "김치찌개")
            XCTAssertEqual(entries.last?.after?["ko"], "묵은지 김치찌개")
        }
    }
}
