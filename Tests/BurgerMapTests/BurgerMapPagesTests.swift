import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import LookForRealBurgerApp
import Platform
import WhatWeEatTesting
import XCTVapor

/// The burger map's pages as a browser fetches them: who may open what, what the server renders
/// (escaped), the config the scripts read, the browser session's API token, the inbox page and
/// bell, Leaflet's files and the page policy that lets the map's tiles in.
final class BurgerMapPagesTests: XCTestCase {
    /// A signed-up browser (session cookie and CSRF token kept).
    func signedInBrowser(_ app: Application, nickname: String) async throws -> CookieBrowser {
        try await CookieBrowser.signedUp(app, nickname: nickname)
    }

    func seededPlace(_ app: Application) async throws -> BurgerPlace {
        let place = try await BurgerPlace.query(on: app.db).filter(\.$reviewCount > 0).sort(\.$name).first()
        return try XCTUnwrap(place)
    }

    func testEveryPageOpensForAVisitorWithTheSeededCatalog() async throws {
        try await withTestApp { app in
            let place = try await seededPlace(app)
            let firstReview = try await BurgerReview.query(on: app.db).filter(\.$place.$id == place.requireID()).first()
            let review = try XCTUnwrap(firstReview)
            var visitor = CookieBrowser(app: app)

            let home = try await visitor.get("/")
            XCTAssertTrue(home.text.contains(#"href="/map""#), "the home card links the map")

            let map = try await visitor.get("/map")
            XCTAssertEqual(map.status, .ok)
            for id in ["map-search", "map-q", "map", "locate", "view-toggle", "place-list", "place-sheet", "map-status"] {
                XCTAssertTrue(map.text.contains(#"id="\#(id)""#), id)
            }
            let mapConfig = try XCTUnwrap(try pageConfig(map)["map"] as? [String: Any])
            XCTAssertEqual(mapConfig["q"] as? String, "")
            XCTAssertNotNil(mapConfig["tileURL"] as? String)
            XCTAssertTrue(try pageConfig(map)["me"] is NSNull, "a visitor is nobody")
            XCTAssertTrue(try pageConfig(map)["accessToken"] is NSNull)
            let strings = try XCTUnwrap(try pageConfig(map)["strings"] as? [String: String])
            XCTAssertFalse(strings.isEmpty, "the scripts get their texts")
            XCTAssertTrue(strings.keys.allSatisfy { $0.hasPrefix("burger_map.js.") })

            let placePage = try await visitor.get("/map/places/\(place.requireID())")
            XCTAssertEqual(placePage.status, .ok)
            XCTAssertTrue(placePage.text.contains(Markup.escape(place.name)))
            XCTAssertTrue(placePage.text.contains(#"data-source="/api/v1/burger-map/places/\#(try place.requireID().uuidString.lowercased())/reviews""#))
            XCTAssertTrue(placePage.text.contains(#"href="/login?next=/map/places/"#), "marks ask a visitor to log in")
            // The UX review: a place had a preview card but no way to send it, and no 길찾기.
            let placeID = try place.requireID().uuidString.lowercased()
            XCTAssertTrue(placePage.text.contains(#"data-share-url="http://127.0.0.1:8080/map/places/\#(placeID)""#), "its public address")
            let directions = try XCTUnwrap(placePage.text.firstMatch(of: /id="place-directions" class="button" href="([^"]+)"/)?.1)
            XCTAssertTrue(directions.hasPrefix("https://map.kakao.com/link/to/") && directions.hasSuffix(",\(place.lat),\(place.lon)"), String(directions))

            let reviewPage = try await visitor.get("/map/reviews/\(review.requireID())")
            XCTAssertEqual(reviewPage.status, .ok)
            XCTAssertTrue(reviewPage.text.contains(Markup.escape(review.title)))
            XCTAssertTrue(reviewPage.text.contains(#"id="review-photos""#))
            XCTAssertFalse(reviewPage.text.contains(#"id="comment-form""#), "a visitor gets a login link, not the form")
            XCTAssertFalse(reviewPage.text.contains(#"id="report-button""#))
            XCTAssertTrue(reviewPage.text.contains(#"data-share-url="http://127.0.0.1:8080/map/reviews/\#(try review.requireID().uuidString.lowercased())""#))

            let author = try await visitor.get("/map/users/\(review.$author.id)")
            XCTAssertEqual(author.status, .ok)
            XCTAssertTrue(author.text.contains(#"id="profile-name""#))
            XCTAssertFalse(author.text.contains(#"data-tab="likes""#), "likes, bookmarks and marks are one's own")

            let feed = try await visitor.get("/map/feed")
            XCTAssertTrue(feed.text.contains(#"data-source="/api/v1/burger-map/reviews""#))
            let following = try await visitor.get("/map/feed?tab=following")
            XCTAssertEqual(following.status, .ok)
            XCTAssertFalse(following.text.contains(#"id="feed-list""#))
            XCTAssertTrue(following.text.contains(#"id="feed-login""#))
        }
    }

    func testUnknownAndMalformedIdsAre404PagesAndWritingNeedsAnAccount() async throws {
        try await withTestApp { app in
            var visitor = CookieBrowser(app: app)
            for path in ["/map/places/\(UUID())", "/map/places/not-a-uuid", "/map/reviews/\(UUID())", "/map/reviews/1",
                         "/map/users/\(UUID())", "/map/users/%3Cscript%3E"] {
                let page = try await visitor.get(path)
                XCTAssertEqual(page.status, .notFound, path)
                XCTAssertTrue(page.headers.contentType?.subType == "html", path)
                XCTAssertFalse(page.text.contains("<script>"), path)
            }
            let place = try await seededPlace(app)
            let write = try await visitor.get("/map/write?place=\(place.requireID())")
            XCTAssertEqual(write.status, .seeOther)
            let location = try XCTUnwrap(write.headers.first(name: .location))
            XCTAssertEqual(location, "/login?next=/map/write%3Fplace%3D\(try place.requireID().uuidString)", "the place comes back after login")
            let me = try await visitor.get("/map/me")
            XCTAssertEqual(me.status, .seeOther)
            XCTAssertEqual(me.headers.first(name: .location), "/login?next=/map/me")
            let inbox = try await visitor.get("/notifications")
            XCTAssertEqual(inbox.status, .seeOther)
        }
    }

    func testASignedInPageCarriesATokenForItsOwnSessionThatLogOutRevokes() async throws {
        try await withTestApp { app in
            var browser = try await signedInBrowser(app, nickname: "버거러버")
            let map = try await browser.get("/map")
            let config = try pageConfig(map)
            let token = try XCTUnwrap(config["accessToken"] as? String)
            let me = try await app.send(.GET, "/api/v1/me", token: token)
            XCTAssertEqual(me.status, .ok)
            XCTAssertEqual(try me.object()["id"] as? String, config["me"] as? String, "config.me matches the API's ids")
            XCTAssertEqual(try me.object()["nickname"] as? String, "버거러버")

            // Renewing needs the page's CSRF token; with it, a working token comes back.
            let forged = try await browser.post("/session/token", form: [:], includeCSRF: false)
            XCTAssertEqual(forged.status, .forbidden)
            let renewed = try await browser.post("/session/token", form: [:])
            XCTAssertEqual(renewed.status, .ok)
            let fresh = try XCTUnwrap(try renewed.object()["accessToken"] as? String)
            XCTAssertGreaterThan(try XCTUnwrap(try renewed.object()["expiresIn"] as? Int), 0)
            let again = try await app.send(.GET, "/api/v1/me", token: fresh)
            XCTAssertEqual(again.status, .ok)

            _ = try await browser.get("/logout")
            let out = try await browser.post("/logout", form: [:])
            XCTAssertEqual(out.status, .seeOther)
            for old in [token, fresh] {
                let after = try await app.send(.GET, "/api/v1/me", token: old)
                XCTAssertEqual(after.status, .unauthorized, "signing out ends the page's token too")
            }
            var anonymous = CookieBrowser(app: app)
            _ = try await anonymous.get("/map")
            let refused = try await anonymous.post("/session/token", form: [:])
            XCTAssertEqual(refused.status, .unauthorized)
        }
    }

    /// A review page keeps what every reader sees alike (issue 61, point 5) until the map's content
    /// changes: an edit, a comment and a like show at the next read; each reader's own parts stay theirs.
    func testAReviewPageFollowsEditsAndKeepsEachReadersOwnParts() async throws {
        try await withTestApp { app in
            let writer = try await app.member("작성자")
            let place = try await app.place(writer.token, "캐시 버거")
            let review = try await app.review(writer.token, place: place, title: "처음 제목")
            var visitor = CookieBrowser(app: app)
            let first = try await visitor.get("/map/reviews/\(review)")
            XCTAssertTrue(first.text.contains("처음 제목") && first.text.contains(#"id="comment-login""#) && first.text.contains(">댓글 0<"))
            let edited = try await app.send(.PATCH, "/api/v1/burger-map/reviews/\(review)", raw: #"{"title": "고친 제목"}"#, token: writer.token)
            XCTAssertEqual(edited.status, .ok, edited.text)
            let afterEdit = try await visitor.get("/map/reviews/\(review)")
            XCTAssertTrue(afterEdit.text.contains("고친 제목") && !afterEdit.text.contains("처음 제목"), "the edit shows at once")

            var reader = try await signedInBrowser(app, nickname: "읽는이")
            let signedIn = try await reader.get("/map/reviews/\(review)")
            XCTAssertTrue(signedIn.text.contains(#"id="comment-form""#) && !signedIn.text.contains(#"id="comment-login""#), "a reader's comment form, not the visitor's link")
            XCTAssertTrue(signedIn.text.contains(#"id="report-button""#) && !signedIn.text.contains(#"id="delete-review""#))
            let comment = try await app.send(.POST, "/api/v1/burger-map/reviews/\(review)/comments", raw: #"{"text": "맛있어 보여요"}"#, token: writer.token)
            XCTAssertEqual(comment.status.code / 100, 2, comment.text)
            let afterComment = try await reader.get("/map/reviews/\(review)")
            XCTAssertTrue(afterComment.text.contains(">댓글 1<"), "the comment count follows")
            let visitorAgain = try await visitor.get("/map/reviews/\(review)")
            XCTAssertTrue(visitorAgain.text.contains(#"id="comment-login""#) && !visitorAgain.text.contains(#"id="report-button""#), "the visitor's own parts")
        }
    }

    /// A place's and a review's pages are kept whole; each signed-in reader's marks and reactions
    /// are their own, and follow their toggles at the next read.
    func testEachReadersMarksAndReactionsFollowTheirToggles() async throws {
        try await withTestApp { app in
            let writer = try await app.member("작성자")
            let place = try await app.place(writer.token, "토글 버거")
            let review = try await app.review(writer.token, place: place, title: "토글 리뷰")
            var mina = try await signedInBrowser(app, nickname: "미나")
            var tom = try await signedInBrowser(app, nickname: "톰")
            func pressed(_ page: TestingHTTPResponse, _ id: String) -> Bool? {
                if page.text.contains(#"id="\#(id)" class="mark-toggle" data-kind="eaten" aria-pressed="true""#)
                    || page.text.contains(#"id="\#(id)" class="reaction" aria-pressed="true""#) { return true }
                if page.text.contains(#"aria-pressed="false""#) && page.text.contains(#"id="\#(id)""#) { return false }
                return nil
            }
            // Both read first, so the pages and their marks are kept before anything changes.
            for browser in [mina, tom] {
                var browser = browser
                let placePage = try await browser.get("/map/places/\(place)")
                XCTAssertEqual(pressed(placePage, "mark-eaten"), false)
                XCTAssertEqual(try pageConfig(placePage)["place"].flatMap { ($0 as? [String: Any])?["myMarks"] as? [String] }, [])
                let reviewPage = try await browser.get("/map/reviews/\(review)")
                XCTAssertEqual(pressed(reviewPage, "like-button"), false)
            }
            let minasPage = try await mina.get("/map/places/\(place)")
            let minasToken = try XCTUnwrap(try pageConfig(minasPage)["accessToken"] as? String)
            let marked = try await app.send(.PUT, "/api/v1/burger-map/places/\(place)/marks/eaten", raw: "", token: minasToken)
            XCTAssertEqual(marked.status, .ok, marked.text)
            let liked = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(review)/like", raw: "", token: minasToken)
            XCTAssertEqual(liked.status.code / 100, 2, liked.text)

            let minasPlace = try await mina.get("/map/places/\(place)")
            XCTAssertEqual(pressed(minasPlace, "mark-eaten"), true, "her mark shows at her next read")
            XCTAssertEqual(try pageConfig(minasPlace)["place"].flatMap { ($0 as? [String: Any])?["myMarks"] as? [String] }, ["eaten"])
            let minasReview = try await mina.get("/map/reviews/\(review)")
            XCTAssertEqual(pressed(minasReview, "like-button"), true)
            XCTAssertEqual(try pageConfig(minasReview)["review"].flatMap { ($0 as? [String: Any])?["likedByMe"] as? Bool }, true)
            let tomsPlace = try await tom.get("/map/places/\(place)")
            XCTAssertEqual(pressed(tomsPlace, "mark-eaten"), false, "never another reader's")
            XCTAssertTrue(tomsPlace.text.contains(#"<span class="count">1</span>"#), "the count everyone sees follows")
            let tomsReview = try await tom.get("/map/reviews/\(review)")
            XCTAssertEqual(pressed(tomsReview, "like-button"), false)
            XCTAssertEqual(try pageConfig(tomsReview)["review"].flatMap { ($0 as? [String: Any])?["likedByMe"] as? Bool }, false)

            let unliked = try await app.send(.DELETE, "/api/v1/burger-map/reviews/\(review)/like", raw: "", token: minasToken)
            XCTAssertEqual(unliked.status.code / 100, 2, unliked.text)
            let afterUnlike = try await mina.get("/map/reviews/\(review)")
            XCTAssertEqual(pressed(afterUnlike, "like-button"), false, "taken back at once")
        }
    }

    func testWhatPeopleWroteIsEscappedInMarkupAndInTheConfigBlock() async throws {
        try await withTestApp { app in
            let hostile = "</script><script>alert(1)</script>"
            let writer = try await app.member("작성자")
            let place = try await app.place(writer.token, "버거 \(hostile)")
            let review = try await app.review(writer.token, place: place, title: "제목 \(hostile)")
            var visitor = CookieBrowser(app: app)
            for path in ["/map/places/\(place)", "/map/reviews/\(review)", "/map/write?place=\(place)"] {
                var page = try await visitor.get(path)
                if page.status == .seeOther {
                    visitor = try await signedInBrowser(app, nickname: "읽는이")
                    page = try await visitor.get(path)
                }
                XCTAssertEqual(page.status, .ok, path)
                XCTAssertFalse(page.text.contains("<script>alert(1)"), path)
                XCTAssertTrue(page.text.contains(#"\u003cscript\u003ealert(1)"#), "the config block holds it escaped: \(path)")
            }
            // The share button's words and 길찾기's address carry the name escaped, and the name
            // cannot end 카카오맵's `link/to` address early.
            let placePage = try await visitor.get("/map/places/\(place)")
            XCTAssertTrue(placePage.text.contains(#"data-share-title="버거 &lt;/script&gt;"#))
            let directions = try XCTUnwrap(placePage.text.firstMatch(of: /id="place-directions" class="button" href="([^"]+)"/)?.1)
            XCTAssertFalse(directions.contains("<") || directions.contains(">") || directions.dropFirst("https://map.kakao.com/link/to/".count).contains("/"),
                           String(directions))
            XCTAssertEqual(BurgerMapPages.directionsURL(name: "버거, 2호점", lat: 37.5, lon: 127.0),
                           "https://map.kakao.com/link/to/%EB%B2%84%EA%B1%B0%20%202%ED%98%B8%EC%A0%90,37.5,127.0")
            // What the map echoes from its address is escaped too.
            let searched = try await visitor.get("/map?q=%3Cscript%3E%EA%B9%80%EC%B9%98%EC%B0%8C%EA%B0%9C")
            XCTAssertEqual(searched.status, .ok)
            XCTAssertTrue(searched.text.contains("&lt;script&gt;김치찌개"))
            XCTAssertFalse(searched.text.contains("<script>김치찌개"))
        }
    }

    func testMyProfileHasMyListsAndOthersHaveAFollowButton() async throws {
        try await withTestApp { app in
            var mina = try await signedInBrowser(app, nickname: "미나")
            let mine = try await mina.get("/map/me")
            XCTAssertEqual(mine.status, .seeOther)
            let myPath = try XCTUnwrap(mine.headers.first(name: .location))
            XCTAssertTrue(myPath.hasPrefix("/map/users/"))
            let myPage = try await mina.get(myPath + "?tab=likes")
            XCTAssertEqual(myPage.status, .ok)
            XCTAssertTrue(myPage.text.contains(#"data-source="/api/v1/burger-map/me/likes""#))
            XCTAssertTrue(myPage.text.contains(#"id="edit-profile""#))
            XCTAssertFalse(myPage.text.contains(#"id="follow-button""#), "nobody follows themselves")
            let wants = try await mina.get(myPath + "?tab=want")
            XCTAssertTrue(wants.text.contains(#"data-source="/api/v1/burger-map/me/marks?kind=want""#))
            XCTAssertTrue(wants.text.contains(#"data-kind="places""#))

            let joon = try await app.member("준호")
            let other = try await mina.get("/map/users/\(joon.id)?tab=likes")
            XCTAssertEqual(other.status, .ok)
            XCTAssertTrue(other.text.contains(#"data-source="/api/v1/burger-map/users/\#(joon.id.uuidString.lowercased())/reviews""#),
                          "someone else's private list falls back to their reviews")
            XCTAssertTrue(other.text.contains(#"id="follow-button""#))
            XCTAssertTrue(other.text.contains(#"aria-pressed="false""#))

            // Following shows on her next read of the kept page, and only on hers.
            var tom = try await signedInBrowser(app, nickname: "톰")
            let tomsBefore = try await tom.get("/map/users/\(joon.id)")
            XCTAssertTrue(tomsBefore.text.contains(#"aria-pressed="false""#))
            let minasToken = try XCTUnwrap(try pageConfig(other)["accessToken"] as? String)
            let followed = try await app.send(.PUT, "/api/v1/burger-map/users/\(joon.id)/follow", raw: "", token: minasToken)
            XCTAssertEqual(followed.status.code / 100, 2, followed.text)
            let minasAfter = try await mina.get("/map/users/\(joon.id)")
            XCTAssertTrue(minasAfter.text.contains(#"id="follow-button" class="button" aria-pressed="true""#), minasAfter.text)
            XCTAssertEqual(try pageConfig(minasAfter)["profile"].flatMap { ($0 as? [String: Any])?["followedByMe"] as? Bool }, true)
            XCTAssertTrue(minasAfter.text.contains(#"<strong id="follower-count">1</strong>"#), "the count everyone sees follows")
            let tomsAfter = try await tom.get("/map/users/\(joon.id)")
            XCTAssertTrue(tomsAfter.text.contains(#"aria-pressed="false""#) && tomsAfter.text.contains(#"<strong id="follower-count">1</strong>"#))
            XCTAssertEqual(try pageConfig(tomsAfter)["profile"].flatMap { ($0 as? [String: Any])?["followedByMe"] as? Bool }, false)

            // A new name shows on the kept page at once, not after the cache's lifetime.
            let renamed = try await app.send(.PATCH, "/api/v1/me", json: ["nickname": "준호짱"], token: joon.token)
            XCTAssertEqual(renamed.status, .ok, renamed.text)
            let tomsRenamed = try await tom.get("/map/users/\(joon.id)")
            XCTAssertTrue(tomsRenamed.text.contains(#"<h1 id="profile-name">준호짱</h1>"#), "the new name at the next read")
        }
    }

    func testWritePageStartsWithTheNamedPlaceAndIgnoresAnythingElse() async throws {
        try await withTestApp { app in
            var browser = try await signedInBrowser(app, nickname: "리뷰어")
            let place = try await seededPlace(app)
            let chosen = try await browser.get("/map/write?place=\(place.requireID())")
            XCTAssertEqual(chosen.status, .ok)
            let config = try pageConfig(chosen)
            XCTAssertEqual((config["place"] as? [String: Any])?["name"] as? String, place.name)
            XCTAssertTrue(chosen.text.contains(#"value="\#(try place.requireID().uuidString)""#))
            for junk in ["nope", UUID().uuidString, "%00"] {
                let page = try await browser.get("/map/write?place=\(junk)")
                XCTAssertEqual(page.status, .ok, junk)
                XCTAssertTrue(try pageConfig(page)["place"] is NSNull, junk)
            }
            for id in ["review-form", "place-search", "place-results", "new-place", "new-place-name", "new-place-address",
                       "use-location", "rating", "review-title", "review-text", "text-counter", "photo-input", "photo-previews",
                       "post-review", "error-place", "error-rating", "error-title", "error-text", "error-photos", "form-error"] {
                XCTAssertTrue(chosen.text.contains(#"id="\#(id)""#), id)
            }
        }
    }

    func testTheInboxPageShowsWhatArrivedMarksItReadAndTheBellCounts() async throws {
        try await withTestApp { app in
            var mina = try await signedInBrowser(app, nickname: "미나")
            let minaAccount = try await User.query(on: app.db).filter(\.$nickname == "미나").first()
            let minaID = try XCTUnwrap(minaAccount).requireID()
            let joon = try await app.member("준호")
            let answer1 = try await app.send(.PUT, "/api/v1/burger-map/users/\(minaID)/follow", token: joon.token)
            XCTAssertEqual(answer1.status, .ok)

            let map = try await mina.get("/map")
            XCTAssertTrue(map.text.contains(#"id="inbox-bell""#))
            XCTAssertTrue(map.text.contains(#"<span class="inbox-count" id="inbox-count" aria-hidden="true">1</span>"#), "one unread on first paint")

            let inbox = try await mina.get("/notifications")
            XCTAssertEqual(inbox.status, .ok)
            XCTAssertTrue(inbox.text.contains("준호"))
            XCTAssertTrue(inbox.text.contains("notification unread"), "it is new on this visit")
            XCTAssertTrue(inbox.text.contains(#"href="/map/users/\#(joon.id.uuidString.lowercased())""#))
            // Each entry names its service and says when as the feed does; "모두 읽음" is always there.
            XCTAssertTrue(inbox.text.contains(#"<span class="notification-service">진짜 버거 지도</span>"#))
            XCTAssertTrue(inbox.text.contains(">지금</time>"), "a moment ago")
            XCTAssertTrue(inbox.text.contains(#"id="mark-all-read""#))
            let after = try await mina.get("/map")
            XCTAssertTrue(after.text.contains(#"id="inbox-count" aria-hidden="true" hidden="hidden">0</span>"#), "opening the inbox read it")

            // The page's socket: only for a page of this site.
            var headers: HTTPHeaders = ["Cookie": mina.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "), "Accept": "text/html"]
            let noOrigin = try await app.send(.GET, "/notifications/live", headers: headers)
            XCTAssertEqual(noOrigin.status, .forbidden)
            headers.add(name: .origin, value: "https://evil.example")
            headers.add(name: .host, value: "127.0.0.1:8080")
            let foreign = try await app.send(.GET, "/notifications/live", headers: headers)
            XCTAssertEqual(foreign.status, .forbidden)
        }
    }

    func testLeafletIsServedFromItsFolderOnlyAndThePolicyAllowsTheTiles() async throws {
        let folder = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/images", withIntermediateDirectories: true)
        try Data("window.L = {};".utf8).write(to: URL(fileURLWithPath: folder + "/leaflet.js"))
        try Data(".leaflet-container {}".utf8).write(to: URL(fileURLWithPath: folder + "/leaflet.css"))
        try TestImages.png().write(to: URL(fileURLWithPath: folder + "/images/marker-icon.png"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        try await withTestApp(adjust: {
            $0.map.leafletDirectory = folder
            $0.map.tileURL = "https://{s}.tiles.example.org/{z}/{x}/{y}.png"
        }) { app in
            var visitor = CookieBrowser(app: app)
            let map = try await visitor.get("/map")
            XCTAssertTrue(map.text.contains(#"<script src="/vendor/leaflet/leaflet.js"></script>"#))
            let policy = try XCTUnwrap(map.headers.first(name: "Content-Security-Policy"))
            XCTAssertTrue(policy.contains("img-src 'self' data: blob: https://*.tiles.example.org;"), policy)
            XCTAssertTrue(policy.contains("script-src 'self';"), "local Leaflet needs no other origin: \(policy)")

            let answer2 = try await app.send(.GET, "/vendor/leaflet/leaflet.js")
            XCTAssertEqual(answer2.status, .ok)
            let answer3 = try await app.send(.GET, "/vendor/leaflet/leaflet.css")
            XCTAssertEqual(answer3.status, .ok)
            let answer4 = try await app.send(.GET, "/vendor/leaflet/images/marker-icon.png")
            XCTAssertEqual(answer4.status, .ok)
            for path in ["/vendor/leaflet/notes.txt", "/vendor/leaflet/..%2Fleaflet.js", "/vendor/leaflet/images/..%2F..%2Fetc%2Fpasswd",
                         "/vendor/leaflet/missing.js", "/vendor/leaflet/.hidden.js"] {
                let answer5 = try await app.send(.GET, path)
                XCTAssertTrue([.notFound, .forbidden].contains(answer5.status), "\(path): \(answer5.status)")
            }
        }
        // No Debian copy: the pinned CDN file with its integrity hash. The policy allows exactly
        // that file (the CDN's origin serves every npm package: a policy naming it would let an
        // injected script load anything from there), and only on pages with a map.
        try await withTestApp(adjust: { $0.map.leafletDirectory = folder + "/nowhere" }) { app in
            var visitor = CookieBrowser(app: app)
            let map = try await visitor.get("/map")
            XCTAssertTrue(map.text.contains(#"src="https://unpkg.com/leaflet@1.9.4/dist/leaflet.js" integrity="sha256-"#))
            let policy = try XCTUnwrap(map.headers.first(name: "Content-Security-Policy"))
            XCTAssertTrue(policy.contains("script-src 'self' https://unpkg.com/leaflet@1.9.4/dist/leaflet.js;"), policy)
            XCTAssertTrue(policy.contains("style-src 'self' https://unpkg.com/leaflet@1.9.4/dist/leaflet.css;"), policy)
            XCTAssertFalse(policy.contains("https://unpkg.com;"), policy)
            for page in ["/", "/login", "/signup"] {
                let other = try await visitor.get(page)
                let otherPolicy = try XCTUnwrap(other.headers.first(name: "Content-Security-Policy"), page)
                XCTAssertFalse(otherPolicy.contains("unpkg"), "\(page): \(otherPolicy)")
                XCTAssertTrue(otherPolicy.contains("script-src 'self';"), "\(page): \(otherPolicy)")
            }
            let answer6 = try await app.send(.GET, "/vendor/leaflet/leaflet.js")
            XCTAssertEqual(answer6.status, .notFound)
        }
        // Neither: no library on the page (lists only), and the config says so.
        try await withTestApp(adjust: { $0.map.leafletDirectory = folder + "/nowhere"; $0.map.leafletCDN = nil }) { app in
            var visitor = CookieBrowser(app: app)
            let map = try await visitor.get("/map")
            XCTAssertFalse(map.text.contains("leaflet.js"))
            XCTAssertEqual((try pageConfig(map)["map"] as? [String: Any])?["leaflet"] as? Bool, false)
        }
    }
}
