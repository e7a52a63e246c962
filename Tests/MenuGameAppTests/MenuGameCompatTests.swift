import Fluent
import MenuGame
@testable import MenuGameApp
import Platform
import WhatWeEatTesting
import XCTVapor

/// The routes the shipped iOS app calls, checked byte for byte: status, body shape, field
/// names, and JSON literals as bodies.
final class MenuGameCompatTests: XCTestCase {
    static let host = "host-device-token-0001"
    static let player = "player-device-token-0002"

    /// A submission as the app encodes it: nil answers left out, PIN as a string.
    static func submission(token: String, pin: String?, answer: String = #"{"hangover": true, "spicy": false, "rice": true, "nation": ["KOREAN"]}"#,
                           disliked: String = #"["SEAFOOD"]"#) -> String {
        let pinField = pin.map { "\"\($0)\"" } ?? "null"
        return #"{"gameAnswer": \#(answer), "dislikedFoods": \#(disliked), "pinNumber": \#(pinField), "token": "\#(token)"}"#
    }

    func createGroup(_ app: Application) async throws -> String {
        let response = try await app.send(.POST, "/group?token=\(Self.host)")
        XCTAssertEqual(response.status, .created)
        return response.text
    }

    func testRandomMenu() async throws {
        try await withTestApp { app in
            let response = try await app.send(.GET, "/menu/random")
            XCTAssertEqual(response.status, .ok)
            let body = try response.object()
            XCTAssertEqual(Set(body.keys), ["name", "imageURL"])
            let name = try XCTUnwrap(body["name"] as? String)
            XCTAssertTrue(app.menuCatalog.snapshot.menus.contains { $0.name.ko == name }, "a Korean catalog name: \(name)")
            try await Self.assertJPEG(body["imageURL"], app)
        }
    }

    /// The app draws with `UIImage(data:)`, which draws no SVG: every picture it is named must be a
    /// whole JPEG (start and end markers) served from this site.
    static func assertJPEG(_ value: Any?, _ app: Application, file: StaticString = #filePath, line: UInt = #line) async throws {
        let imageURL = try XCTUnwrap(value as? String, file: file, line: line)
        XCTAssertTrue(imageURL.hasPrefix(app.settings.publicURL + "/images/menus/") && imageURL.hasSuffix(".jpg"), imageURL, file: file, line: line)
        let image = try await app.send(.GET, String(imageURL.dropFirst(app.settings.publicURL.count)))
        XCTAssertEqual(image.status, .ok, imageURL, file: file, line: line)
        XCTAssertEqual(image.headers.contentType, .jpeg, imageURL, file: file, line: line)
        let bytes = Array(image.body.readableBytesView)
        XCTAssertEqual(Array(bytes.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG's start: \(imageURL)", file: file, line: line)
        XCTAssertEqual(Array(bytes.suffix(2)), [0xFF, 0xD9], "a whole JPEG, to its end marker: \(imageURL)", file: file, line: line)
    }

    /// A menu an operator adds with an emoji no card was drawn for still has a JPEG: the generic
    /// 🥢 card (the app's picture would otherwise spin for good).
    func testAMenuWithoutADrawnCardGetsTheGenericOne() async throws {
        try await withTestApp { app in
            let unicorn = Menu(id: "unicorn-toast", name: .init(ko: "유니콘 토스트", en: "Unicorn toast", ja: "ユニコーントースト"), emoji: "🦄",
                               nations: [.western], flavors: [], rice: false, noodle: false, soup: false, healthy: false, instant: false,
                               alcohol: false, expense: .cheap)
            try await MenuStore(database: app.db, application: app).add(unicorn, imageURL: nil)
            // A service as a request makes it (after the add: it reads the catalog then).
            let game = MenuGameService(request: Request(application: app, on: app.eventLoopGroup.next()))
            XCTAssertEqual(game.rasterImageURL(for: unicorn), app.settings.publicURL + "/images/menus/unicorn-toast.jpg")
            try await Self.assertJPEG(game.rasterImageURL(for: unicorn), app)
            let own = Menu(id: "own-picture", name: .init(ko: "사진 있는 메뉴", en: "Own picture", ja: "写真"), emoji: "🍙", nations: [.japanese],
                           flavors: [], rice: true, noodle: false, soup: false, healthy: false, instant: false, alcohol: false, expense: .cheap)
            try await MenuStore(database: app.db, application: app).add(own, imageURL: "https://cdn.example.com/onigiri.png")
            let later = MenuGameService(request: Request(application: app, on: app.eventLoopGroup.next()))
            XCTAssertEqual(later.rasterImageURL(for: own), "https://cdn.example.com/onigiri.png",
                           "a picture of its own that the app can draw is kept")
        }
    }

    func testCreateGroupAnswersTheBarePIN() async throws {
        try await withTestApp { app in
            let response = try await app.send(.POST, "/group?token=\(Self.host)")
            XCTAssertEqual(response.status, .created)
            XCTAssertEqual(response.headers.contentType?.subType, "json")
            let pin = response.text
            XCTAssertNotNil(pin.wholeMatch(of: /[1-9][0-9]{5}/), "six digits, no leading zero: \(pin)")
            XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(pin.utf8), options: .fragmentsAllowed) as? Int, Int(pin), "a valid JSON number")

            // The app's FCM token is "" on a phone that never registered for notifications: no device.
            for path in ["/group", "/group?token="] {
                let noToken = try await app.send(.POST, path)
                XCTAssertEqual(noToken.status, .created, path)
                XCTAssertNotNil(noToken.text.wholeMatch(of: /[1-9][0-9]{5}/), path)
            }
            let shortToken = try await app.send(.POST, "/group?token=short")
            XCTAssertEqual(shortToken.errorCode, "invalid_device_token")
        }
    }

    func testPINLookUpIsAJSONLiteral() async throws {
        try await withTestApp { app in
            let pin = try await createGroup(app)
            for (path, expected) in [("/group/\(pin)", "true"), ("/group/999999", "false"), ("/group/abc", "false"),
                                     ("/group/012345", "false"), ("/group/1234567", "false")] {
                let response = try await app.send(.GET, path)
                XCTAssertEqual(response.status, .ok, path)
                XCTAssertEqual(response.text, expected, path)
                XCTAssertEqual(response.headers.contentType?.subType, "json", path)
            }
        }
    }

    func testAWholeGroupGameAsTheAppPlaysIt() async throws {
        try await withTestApp { app in
            let pin = try await createGroup(app)
            let hostSubmit = try await app.send(.POST, "/group/\(pin)", raw: Self.submission(token: Self.host, pin: pin))
            XCTAssertEqual(hostSubmit.status, .ok)
            XCTAssertEqual(hostSubmit.body.readableBytes, 0, "empty body")
            // The app's encoder leaves nil fields out; null and absent mean the same.
            let playerSubmit = try await app.send(.POST, "/group/\(pin)", raw: Self.submission(
                token: Self.player, pin: pin, answer: #"{"greasy": null, "alcohol": true, "nation": []}"#, disliked: "[]"))
            XCTAssertEqual(playerSubmit.status, .ok)

            let hostWait = try await app.send(.GET, "/group/\(pin)/gameresultwait?token=\(Self.host)")
            XCTAssertEqual(hostWait.status, .ok)
            let hostState = try hostWait.object()
            XCTAssertEqual(Set(hostState.keys), ["submissionCount", "isHost", "isGameClosed"])
            XCTAssertEqual(hostState["submissionCount"] as? Int, 2)
            XCTAssertEqual(hostState["isHost"] as? Bool, true)
            XCTAssertEqual(hostState["isGameClosed"] as? Bool, false)
            let playerState = try await app.send(.GET, "/group/\(pin)/gameresultwait?token=\(Self.player)").object()
            XCTAssertEqual(playerState["isHost"] as? Bool, false)

            // The player restarts (cancels), then submits again: still two.
            let cancel = try await app.send(.PUT, "/group/\(pin)?token=\(Self.player)")
            XCTAssertEqual(cancel.status, .ok)
            let response1 = try await app.send(.GET, "/group/\(pin)/gameresultwait?token=\(Self.host)")
            XCTAssertEqual(try response1.object()["submissionCount"] as? Int, 1)
            _ = try await app.send(.POST, "/group/\(pin)", raw: Self.submission(token: Self.player, pin: pin))
            _ = try await app.send(.POST, "/group/\(pin)", raw: Self.submission(token: Self.player, pin: pin))
            let response2 = try await app.send(.GET, "/group/\(pin)/gameresultwait?token=\(Self.host)")
            XCTAssertEqual(try response2.object()["submissionCount"] as? Int, 2,
                           "a resubmission replaces the earlier one")

            let result = try await app.send(.GET, "/group/\(pin)/gameresult")
            XCTAssertEqual(result.status, .ok)
            let body = try result.object()
            XCTAssertEqual(Set(body.keys), ["menus", "playerCount"])
            XCTAssertEqual(body["playerCount"] as? Int, 2)
            let menus = try XCTUnwrap(body["menus"] as? [[String: Any]])
            XCTAssertEqual(menus.count, 3)
            for menu in menus {
                XCTAssertEqual(Set(menu.keys), ["name", "imageURL", "keywords"])
                XCTAssertEqual((menu["keywords"] as? [String])?.count, 3)
                let name = try XCTUnwrap(menu["name"] as? String)
                let catalogMenu = try XCTUnwrap(app.menuCatalog.snapshot.menus.first { $0.name.ko == name })
                XCTAssertFalse(catalogMenu.flavors.contains(.seafood), "the host dislikes seafood: \(name)")
            }
            for menu in menus { try await Self.assertJPEG(menu["imageURL"], app) }
            let again = try await app.send(.GET, "/group/\(pin)/gameresult")
            XCTAssertEqual(try again.object() as NSDictionary, body as NSDictionary, "the same results on every later call")

            // After closing: the old app's late submission is answered 200 and not counted.
            let late = try await app.send(.POST, "/group/\(pin)", raw: Self.submission(token: "late-device-token-0003", pin: pin))
            XCTAssertEqual(late.status, .ok)
            let closed = try await app.send(.GET, "/group/\(pin)/gameresultwait?token=\(Self.player)").object()
            XCTAssertEqual(closed["submissionCount"] as? Int, 2)
            XCTAssertEqual(closed["isGameClosed"] as? Bool, true)
            let response3 = try await app.send(.GET, "/group/\(pin)")
            XCTAssertEqual(response3.text, "false", "a closed game cannot be joined")
        }
    }

    /// Every phone without an FCM token (the shipped app never asks for one): the host makes the
    /// room from its network and sees 결과확인하기 there; each answer counts; the results come.
    func testAWholeGroupGameWithoutTokens() async throws {
        try await withTestApp { app in
            let created = try await app.send(.POST, "/group?token=")
            XCTAssertEqual(created.status, .created)
            let pin = created.text
            for answer in [#"{"spicy": true}"#, #"{"rice": true}"#, #"{"alcohol": true}"#] {
                let submitted = try await app.send(.POST, "/group/\(pin)", raw: Self.submission(token: "", pin: pin, answer: answer))
                XCTAssertEqual(submitted.status, .ok, submitted.text)
            }
            let hostWait = try await app.send(.GET, "/group/\(pin)/gameresultwait?token=").object()
            XCTAssertEqual(hostWait["submissionCount"] as? Int, 3, "phones without a token cannot be told apart: each answer counts")
            XCTAssertEqual(hostWait["isHost"] as? Bool, true, "the host's waiting page, on the network that made the room, can close it")
            let tokenedPlayer = try await app.send(.GET, "/group/\(pin)/gameresultwait?token=\(Self.player)").object()
            XCTAssertEqual(tokenedPlayer["isHost"] as? Bool, false)
            let malformed = try await app.send(.GET, "/group/\(pin)/gameresultwait?token=short")
            XCTAssertEqual(malformed.status, .ok, "a malformed token only is not the host's: the route answers 200, 404 or 429")
            XCTAssertEqual(try malformed.object()["isHost"] as? Bool, false)
            let cancel = try await app.send(.PUT, "/group/\(pin)?token=")
            XCTAssertEqual(cancel.status, .ok, "nothing to tell whose: nothing withdrawn, and the app goes back")
            let afterCancel = try await app.send(.GET, "/group/\(pin)/gameresultwait?token=").object()
            XCTAssertEqual(afterCancel["submissionCount"] as? Int, 3)

            // A class of such phones behind one address: more rooms than one host may open (10 in
            // 10 minutes), within the network's budget; a phone with a token keeps its own limit.
            for room in 2...12 {
                let another = try await app.send(.POST, "/group")
                XCTAssertEqual(another.status, .created, "token-less room \(room): \(another.text)")
            }
            for room in 1...10 {
                let own = try await app.send(.POST, "/group?token=\(Self.host)")
                XCTAssertEqual(own.status, .created, "room \(room) of one device")
            }
            let eleventh = try await app.send(.POST, "/group?token=\(Self.host)")
            XCTAssertEqual(eleventh.errorCode, "too_many_rooms", "one device's own budget still holds")

            let result = try await app.send(.GET, "/group/\(pin)/gameresult")
            XCTAssertEqual(result.status, .ok)
            let body = try result.object()
            XCTAssertEqual(body["playerCount"] as? Int, 3)
            let menus = try XCTUnwrap(body["menus"] as? [[String: Any]])
            for menu in menus { try await Self.assertJPEG(menu["imageURL"], app) }
        }
    }

    func testSoloGame() async throws {
        try await withTestApp { app in
            let response = try await app.send(.POST, "/group/solo", raw: Self.submission(
                token: Self.player, pin: nil, disliked: #"["MEAT", "SEAFOOD", "SPICY"]"#))
            XCTAssertEqual(response.status, .ok)
            let body = try response.object()
            XCTAssertEqual(Set(body.keys), ["menus", "playerCount"])
            XCTAssertEqual(body["playerCount"] as? Int, 1)
            let menus = try XCTUnwrap(body["menus"] as? [[String: Any]])
            XCTAssertEqual(menus.count, 3)
            for menu in menus {
                let name = try XCTUnwrap(menu["name"] as? String)
                let catalogMenu = try XCTUnwrap(app.menuCatalog.snapshot.menus.first { $0.name.ko == name })
                XCTAssertTrue(catalogMenu.flavors.isDisjoint(with: [.meat, .seafood, .spicy]), name)
            }
            for menu in menus { try await Self.assertJPEG(menu["imageURL"], app) }
            // The app omits pinNumber entirely for solo games.
            let noPIN = try await app.send(.POST, "/group/solo", raw: #"{"gameAnswer": {}, "dislikedFoods": [], "token": "\#(Self.player)"}"#)
            XCTAssertEqual(noPIN.status, .ok)
            // A phone without an FCM token sends "": the game still ends on its results.
            let tokenless = try await app.send(.POST, "/group/solo", raw: Self.submission(token: "", pin: nil))
            XCTAssertEqual(tokenless.status, .ok, tokenless.text)
            let tokenlessMenus = try XCTUnwrap(try tokenless.object()["menus"] as? [[String: Any]])
            XCTAssertEqual(tokenlessMenus.count, 3)
            for menu in tokenlessMenus { try await Self.assertJPEG(menu["imageURL"], app) }
        }
    }

    func testBadInputOnEveryRoute() async throws {
        try await withTestApp { app in
            let pin = try await createGroup(app)
            let cases: [(HTTPMethod, String, String?, HTTPStatus, String)] = [
                (.POST, "/group/\(pin)", "{broken", .badRequest, "malformed_json"),
                (.POST, "/group/\(pin)", #"{"dislikedFoods": []}"#, .badRequest, "missing_field"),
                (.POST, "/group/\(pin)", Self.submission(token: Self.player, pin: pin, answer: #"{"spicy": "yes"}"#), .badRequest, "invalid_type"),
                (.POST, "/group/\(pin)", Self.submission(token: Self.player, pin: pin, answer: #"{"nation": ["MARTIAN"]}"#), .badRequest, "invalid_value"),
                (.POST, "/group/\(pin)", Self.submission(token: Self.player, pin: pin, disliked: #"["GREASY"]"#), .unprocessableEntity, "invalid_disliked_food"),
                (.POST, "/group/\(pin)", Self.submission(token: "short", pin: pin), .unprocessableEntity, "invalid_device_token"),
                (.POST, "/group/999999", Self.submission(token: Self.player, pin: "999999"), .notFound, "group_not_found"),
                (.GET, "/group/999999/gameresultwait?token=\(Self.host)", nil, .notFound, "group_not_found"),
                (.GET, "/group/999999/gameresult", nil, .notFound, "group_not_found"),
                (.PUT, "/group/999999?token=\(Self.player)", nil, .notFound, "group_not_found"),
                (.PUT, "/group/\(pin)?token=short", nil, .unprocessableEntity, "invalid_device_token"),
                // A token is documented as 16–512 visible characters and nothing else: the fuzzer's
                // blank one past 512 was taken as "no token" (200), and padding was trimmed away.
                (.PUT, "/group/\(pin)?token=" + String(repeating: "%20", count: 600), nil, .unprocessableEntity, "invalid_device_token"),
                (.PUT, "/group/\(pin)?token=%20%20\(Self.player)%20", nil, .unprocessableEntity, "invalid_device_token"),
                (.POST, "/group?token=%20%20%20", nil, .unprocessableEntity, "invalid_device_token"),
                (.POST, "/group/solo", "[]", .badRequest, "malformed_json"),
            ]
            for (method, path, body, status, code) in cases {
                let response = try await app.send(method, path, raw: body)
                XCTAssertEqual(response.status, status, "\(method) \(path) \(body ?? "")")
                XCTAssertEqual(response.errorCode, code, "\(method) \(path) \(body ?? "")")
            }
            let count = try await MenuGroupSubmission.query(on: app.db).count()
            XCTAssertEqual(count, 0, "nothing was recorded")
        }
    }
}
