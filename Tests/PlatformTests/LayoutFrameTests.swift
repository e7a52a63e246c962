import Foundation
import WhatWeEatTesting
import XCTVapor

/// Every page's frame is made once per language and shape and kept (`LayoutFrame`), the signed-in
/// account menu included; each reader's own nickname, unread count and CSRF token are filled in
/// per request and must never be another reader's.
final class LayoutFrameTests: XCTestCase {
    private func csrfValues(_ page: TestingHTTPResponse) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"name="_csrf" value="([^"]+)""#)
        let text = page.text
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    func testEachReaderSeesTheirOwnHeaderInTheKeptFrame() async throws {
        try await withTestApp { app in
            var tom = try await CookieBrowser.signedUp(app, nickname: #"톰&"제리'"#)
            var mina = try await CookieBrowser.signedUp(app, nickname: "미나")
            var visitor = CookieBrowser(app: app)
            var tokens: [String] = []
            for round in 0..<2 {  // the first reading makes the frame, the second uses the kept one
                let toms = try await tom.get("/")
                XCTAssertTrue(toms.text.contains(#"<summary class="nickname">톰&amp;&quot;제리&#39;</summary>"#), "escaped where it lands (\(round))")
                XCTAssertTrue(toms.text.contains(#"aria-hidden="true" hidden="hidden">0</span>"#), "nothing unread, the count hidden")
                let minas = try await mina.get("/")
                XCTAssertTrue(minas.text.contains(#"<summary class="nickname">미나</summary>"#))
                // Signing out is in the account's menu and asks first: no form posts it from the frame.
                XCTAssertTrue(minas.text.contains(#"<a id="account-logout" href="/logout">"#))
                XCTAssertFalse(minas.text.contains(#"action="/logout""#))
                XCTAssertFalse(minas.text.contains("제리"), "another reader's nickname never shows")
                let visitors = try await visitor.get("/")
                XCTAssertFalse(visitors.text.contains("account-menu\"><a class=\"inbox-bell\""), "a visitor has no bell")
                XCTAssertTrue(visitors.text.contains(#"href="/login""#))

                // The language form carries this browser's own token.
                let tomsTokens = csrfValues(toms), minasTokens = csrfValues(minas)
                XCTAssertEqual(tomsTokens.count, 1)
                XCTAssertEqual(Set(tomsTokens).count, 1)
                XCTAssertEqual(Set(minasTokens).count, 1)
                XCTAssertNotEqual(tomsTokens.first, minasTokens.first)
                tokens.append(tomsTokens[0])
            }
            XCTAssertEqual(tokens[0], tokens[1], "one browser keeps its token")

            // Signing out asks first, then works with the kept frame's token.
            let asked = try await tom.get("/logout")
            XCTAssertTrue(asked.text.contains(#"id="confirm-logout""#) && asked.text.contains(#"id="cancel-logout""#))
            let out = try await tom.post("/logout", form: [:])
            XCTAssertEqual(out.status, .seeOther)
            let after = try await tom.get("/")
            XCTAssertFalse(after.text.contains("제리"))
            XCTAssertTrue(after.text.contains(#"href="/login""#))
        }
    }
}
