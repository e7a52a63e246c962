import Accounts
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Notifications
import Platform
import Plot
import WhatWeEatTesting
import XCTVapor

/// A page's body is made once per version and kept for every reader signed in alike
/// (`Layout.keptPage`); each reader's CSRF token, API token and own parts are filled in per
/// request and must never be another reader's, and nobody's text can pose as a marker.
final class KeptPageTests: XCTestCase {
    /// What the test page's `make` sees: how often it ran, and the version and text it shows.
    private final class Shown: Sendable {
        let state = NIOLockedValueBox((made: 0, version: 0, text: "first"))
    }

    private func route(_ app: Application, _ shown: Shown, lifetime: TimeAmount? = nil) {
        // As the site's pages are served: the session read, the CSRF token and the inbox's count.
        let web = app.grouped(WebSessionAuthenticator(), CSRFMiddleware(), InboxBadgeMiddleware())
        web.get("kept-test") { req -> Response in
            let now = shown.state.withLockedValue { $0 }
            let viewer = req.storage[WebViewerKey.self]
            // The reader's own: a part in the body, and (signed in) an id and token for the script.
            let mine = Markup.escape("mine:" + (viewer?.nickname ?? "visitor"))
            let api = viewer.map { (me: "id-" + $0.nickname, accessToken: "token-" + $0.nickname) }
            return Layout.keptPage(req, version: now.version, lifetime: lifetime, reader: Layout.ReaderParts(api: api, parts: [mine])) {
                shown.state.withLockedValue { $0.made += 1 }
                return Layout.PageParts(
                    title: "kept", script: ("layout.", ["shown": now.text]),
                    main: .group(
                        .p(.id("shown"), .text(now.text)),
                        .form(.method(.post), .action("/language"), Layout.csrfField(req)),
                        .p(.id("mine"), Layout.readerPart(0))
                    )
                )
            }
        }
    }

    private func matches(_ pattern: String, in text: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    func testEachReaderGetsTheirOwnPartsInAPageMadeOncePerVersion() async throws {
        try await withTestApp { app in
            let shown = Shown()
            route(app, shown)
            var tom = try await CookieBrowser.signedUp(app, nickname: "톰")
            var mina = try await CookieBrowser.signedUp(app, nickname: "미나")
            var visitor = CookieBrowser(app: app)
            for _ in 0..<2 {
                for (browser, name) in [(tom, "톰"), (mina, "미나")] {
                    var browser = browser
                    let page = try await browser.get("/kept-test")
                    XCTAssertEqual(page.status, .ok)
                    XCTAssertTrue(page.text.contains(#"<p id="mine">mine:\#(name)</p>"#), page.text)
                    // Every CSRF token on the page (the frame's language form, the body's form, the
                    // script's config) is this browser's one token.
                    let tokens = matches(#"name="_csrf" value="([^"]+)""#, in: page.text) + matches(#""csrf":"([^"]+)""#, in: page.text)
                    XCTAssertEqual(tokens.count, 3, page.text)
                    XCTAssertEqual(Set(tokens).count, 1)
                    XCTAssertTrue(page.text.contains(#""me":"id-\#(name)""#) && page.text.contains(#""accessToken":"token-\#(name)""#))
                }
                let page = try await visitor.get("/kept-test")
                XCTAssertTrue(page.text.contains(#"<p id="mine">mine:visitor</p>"#))
                XCTAssertTrue(page.text.contains(#""accessToken":null"#) && page.text.contains(#""me":null"#))
            }
            let tomsToken = matches(#""csrf":"([^"]+)""#, in: try await tom.get("/kept-test").text)
            let minasToken = matches(#""csrf":"([^"]+)""#, in: try await mina.get("/kept-test").text)
            XCTAssertNotEqual(tomsToken, minasToken)
            XCTAssertEqual(shown.state.withLockedValue { $0.made }, 2, "made once for the signed in, once for the visitor")

            // A new version is made again, and shows what changed.
            shown.state.withLockedValue { $0 = (made: $0.made, version: 1, text: "second") }
            let minas = try await mina.get("/kept-test").text, toms = try await tom.get("/kept-test").text
            XCTAssertTrue(minas.contains(#"<p id="shown">second</p>"#) && toms.contains(#"<p id="shown">second</p>"#))
            XCTAssertEqual(shown.state.withLockedValue { $0.made }, 3)
            // Another address (a query) is another page.
            let other = try await tom.get("/kept-test?tab=2").text
            XCTAssertTrue(other.contains("second"))
            XCTAssertEqual(shown.state.withLockedValue { $0.made }, 4)
        }
    }

    func testTextThatLooksLikeAMarkerStaysText() async throws {
        try await withTestApp { app in
            let shown = Shown()
            // Someone's text with the private-use characters the markers use, around every slot number.
            let posed = (0..<24).map { "\u{E000}\($0)\u{E001}\u{E000}0:\($0)\u{E001}" }.joined()
            shown.state.withLockedValue { $0.text = posed }
            route(app, shown)
            var tom = try await CookieBrowser.signedUp(app, nickname: "톰")
            for _ in 0..<2 {
                let page = try await tom.get("/kept-test")
                XCTAssertTrue(page.text.contains(#"<p id="shown">\#(posed)</p>"#), "the text as written")
                XCTAssertEqual(page.text.components(separatedBy: "token-톰").count, 2, "the token once, in the config")
                XCTAssertEqual(page.text.components(separatedBy: "mine:톰").count, 2, "the reader's part once, where the page put it")
            }
        }
    }

    func testAKeptPageLastsNoLongerThanItsLifetime() async throws {
        try await withTestApp { app in
            let shown = Shown()
            route(app, shown, lifetime: .milliseconds(200))
            var visitor = CookieBrowser(app: app)
            _ = try await visitor.get("/kept-test")
            _ = try await visitor.get("/kept-test")
            XCTAssertEqual(shown.state.withLockedValue { $0.made }, 1)
            try await Task.sleep(for: .milliseconds(300))
            _ = try await visitor.get("/kept-test")
            XCTAssertEqual(shown.state.withLockedValue { $0.made }, 2, "made again once its lifetime is over")
        }
    }

    /// What a reader's own page shows, as a store would read it per request.
    private struct OwnShown: Hashable, Sendable {
        let lines: [String]
    }

    func testAReadersOwnPageIsKeptByWhatItShowsAndNeverAnothersUnlessEqual() async throws {
        try await withTestApp { app in
            // Each reader's rows, read on every request; `made` counts the renderings.
            let rows = NIOLockedValueBox<[String: [String]]>(["톰": ["김치 2"], "미나": ["멸치볶음 1"]])
            let made = NIOLockedValueBox(0)
            app.grouped(WebSessionAuthenticator(), CSRFMiddleware(), InboxBadgeMiddleware()).get("own-test") { req -> Response in
                let nickname = req.storage[WebViewerKey.self]?.nickname ?? ""
                let shown = OwnShown(lines: rows.withLockedValue { $0[nickname] ?? [] })
                let failed = req.query[String.self, at: "failed"] != nil
                return Layout.keptPage(req, shown: shown, keeps: !failed) { shown in
                    made.withLockedValue { $0 += 1 }
                    return Layout.PageParts(title: "own", main: .group(
                        .ul(.forEach(shown.lines) { .li(.text($0)) }),
                        .form(.method(.post), .action("/language"), Layout.csrfField(req))
                    ))
                }
            }
            var tom = try await CookieBrowser.signedUp(app, nickname: "톰")
            var mina = try await CookieBrowser.signedUp(app, nickname: "미나")
            for _ in 0..<2 {
                let toms = try await tom.get("/own-test").text, minas = try await mina.get("/own-test").text
                XCTAssertTrue(toms.contains("<li>김치 2</li>") && !toms.contains("멸치볶음"), toms)
                XCTAssertTrue(minas.contains("<li>멸치볶음 1</li>") && !minas.contains("김치"), minas)
                XCTAssertNotEqual(matches(#"name="_csrf" value="([^"]+)""#, in: toms), matches(#"name="_csrf" value="([^"]+)""#, in: minas))
            }
            XCTAssertEqual(made.withLockedValue { $0 }, 2, "each reader's page made once while what it shows stays")

            // A change of the reader's rows is shown at once (nothing had to announce it).
            rows.withLockedValue { $0["톰"] = ["김치 3"] }
            let changed = try await tom.get("/own-test").text
            XCTAssertTrue(changed.contains("<li>김치 3</li>") && !changed.contains("김치 2"), changed)
            XCTAssertEqual(made.withLockedValue { $0 }, 3)

            // Two readers showing exactly the same share the page; each still gets their own token.
            rows.withLockedValue { $0["미나"] = ["김치 3"] }
            let shared = try await mina.get("/own-test").text
            XCTAssertTrue(shared.contains("<li>김치 3</li>"))
            XCTAssertEqual(made.withLockedValue { $0 }, 3, "equal in everything shown: the kept page serves")
            XCTAssertEqual(Set(matches(#"name="_csrf" value="([^"]+)""#, in: shared)).count, 1)
            XCTAssertNotEqual(matches(#"name="_csrf" value="([^"]+)""#, in: shared), matches(#"name="_csrf" value="([^"]+)""#, in: changed))

            // Not kept: made on every request.
            _ = try await tom.get("/own-test?failed=1")
            _ = try await tom.get("/own-test?failed=1")
            XCTAssertEqual(made.withLockedValue { $0 }, 5)
        }
    }

    func testACrowdOfReadersOwnPagesNeverStartsTheSharedPagesOver() async throws {
        try await withTestApp { app in
            app.pageFragments = PageFragments(capacity: 4)
            let shown = Shown()
            route(app, shown)
            let ownMade = NIOLockedValueBox(0)
            app.grouped(WebSessionAuthenticator(), CSRFMiddleware(), InboxBadgeMiddleware()).get("own-crowd") { req -> Response in
                let mine = OwnShown(lines: [req.query[String.self, at: "reader"] ?? ""])
                return Layout.keptPage(req, shown: mine) { shown in
                    ownMade.withLockedValue { $0 += 1 }
                    return Layout.PageParts(title: "own", main: .p(.text(shown.lines.joined())))
                }
            }
            var visitor = CookieBrowser(app: app)
            _ = try await visitor.get("/kept-test")
            // Ten readers' own pages: their memory (four) fills and starts over, more than once.
            for reader in 0..<10 { _ = try await visitor.get("/own-crowd?reader=\(reader)") }
            XCTAssertEqual(ownMade.withLockedValue { $0 }, 10)
            _ = try await visitor.get("/kept-test")
            XCTAssertEqual(shown.state.withLockedValue { $0.made }, 1, "the shared page is still kept")
        }
    }

    func testAPageKeptAtAVersionReadsOnlyWhenNotKept() async throws {
        try await withTestApp { app in
            let state = NIOLockedValueBox((version: 0, text: "first", reads: 0))
            app.grouped(WebSessionAuthenticator(), CSRFMiddleware(), InboxBadgeMiddleware()).get("read-test") { req async throws -> Response in
                try await Layout.keptPage(req, version: state.withLockedValue { $0.version }) {
                    // As a database read would: only when the page is not kept at this version.
                    try await Task.sleep(for: .milliseconds(1))
                    let text = state.withLockedValue { $0.reads += 1; return $0.text }
                    return Layout.PageParts(title: "read", main: .group(
                        .p(.id("text"), .text(text)), .form(.method(.post), .action("/language"), Layout.csrfField(req))
                    ))
                }
            }
            var tom = try await CookieBrowser.signedUp(app, nickname: "톰")
            for _ in 0..<3 {
                let page = try await tom.get("/read-test").text
                XCTAssertTrue(page.contains(#"<p id="text">first</p>"#))
                XCTAssertEqual(Set(matches(#"name="_csrf" value="([^"]+)""#, in: page)).count, 1, "the reader's own token, filled in")
            }
            XCTAssertEqual(state.withLockedValue { $0.reads }, 1)
            state.withLockedValue { $0 = (version: 1, text: "second", reads: $0.reads) }
            let moved = try await tom.get("/read-test").text
            XCTAssertTrue(moved.contains(#"<p id="text">second</p>"#))
            XCTAssertEqual(state.withLockedValue { $0.reads }, 2)
        }
    }

    func testAReadersFieldReplacesOnlyTheOuterObjectsOwn() throws {
        let json = #"{"a":{"liked":true},"liked":false,"text":"\"liked\":false","z":[1,{"liked":true}]}"#
        let replaced = PageConfig.Encoded(json: Data(json.utf8)).withReaderPart(2, asField: "liked")
        let text = String(decoding: replaced.data, as: UTF8.self)
        XCTAssertEqual(text, json.replacingOccurrences(of: #","liked":false,"#, with: #","liked":\#(Layout.readerPartMarker(2)),"#))
        let none = PageConfig.Encoded(json: Data(#"{"other":1}"#.utf8)).withReaderPart(0, asField: "liked")
        XCTAssertEqual(String(decoding: none.data, as: UTF8.self), #"{"other":1}"#, "no such field: unchanged")
    }

    /// A value's JSON is encoded once per distinct value and handed back only for an equal value
    /// of the same type: a reader never gets JSON made from another's different profile.
    func testAValuesJSONIsHandedBackOnlyForAnEqualValue() throws {
        struct Profile: Encodable, Hashable, Sendable { let nickname: String; let topics: [String] }
        struct Other: Encodable, Hashable, Sendable { let nickname: String; let topics: [String] }
        let fragments = PageFragments(capacity: 8)
        func text(_ encoded: PageConfig.Encoded) -> String { String(decoding: encoded.data, as: UTF8.self) }
        let first = try fragments.encoded(Profile(nickname: "김밥", topics: ["밥"]))
        XCTAssertEqual(text(first), #"{"nickname":"김밥","topics":["밥"]}"#)
        XCTAssertEqual(text(try fragments.encoded(Profile(nickname: "김밥", topics: ["밥"]))), text(first))
        XCTAssertEqual(text(try fragments.encoded(Profile(nickname: "김밥", topics: ["공부"]))), #"{"nickname":"김밥","topics":["공부"]}"#,
                       "a changed value is encoded again")
        XCTAssertEqual(text(try fragments.encoded(Other(nickname: "김밥", topics: ["밥"]))), #"{"nickname":"김밥","topics":["밥"]}"#)
        for index in 0..<20 { _ = try fragments.encoded(Profile(nickname: "사람\(index)", topics: [])) }
        XCTAssertEqual(text(try fragments.encoded(Profile(nickname: "김밥", topics: ["밥"]))), text(first), "a full memory starts over, never mixes")
    }
}
