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
            let imageURL = try XCTUnwrap(body["imageURL"] as? String)
            XCTAssertTrue(imageURL.hasPrefix(app.settings.publicURL + "/images/menus/") && imageURL.hasSuffix(".svg"), imageURL)
            let image = try await app.send(.GET, String(imageURL.dropFirst(app.settings.publicURL.count)))
            XCTAssertEqual(image.status, .ok)
            XCTAssertEqual(image.headers.contentType?.subType, "svg+xml")
            XCTAssertTrue(image.text.hasPrefix("<svg"))
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

            let noToken = try await app.send(.POST, "/group")
            XCTAssertEqual(noToken.status, .unprocessableEntity)
            XCTAssertEqual(noToken.errorCode, "invalid_device_token")
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
            // The app omits pinNumber entirely for solo games.
            let noPIN = try await app.send(.POST, "/group/solo", raw: #"{"gameAnswer": {}, "dislikedFoods": [], "token": "\#(Self.player)"}"#)
            XCTAssertEqual(noPIN.status, .ok)
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
                (.PUT, "/group/\(pin)", nil, .unprocessableEntity, "invalid_device_token"),
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
