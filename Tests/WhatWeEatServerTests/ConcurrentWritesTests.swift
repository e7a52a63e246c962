import BurgerMap
import Crypto
import Notifications
import Fluent
import Foundation
import NIOHTTP1
import Platform
import SQLKit
import VaporTestUtils
import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

/// Many people at once is the normal case: writes that arrive together wait their turn and are all
/// kept, caps hold under races, and what cannot be done now is 503 with `Retry-After`, never 500
/// (issue 56; the 2026-12-05 probe's finding 12 and the replay's L2). Over real sockets, so the
/// requests really overlap. Run on SQLite and on PostgreSQL (`TEST_DATABASE_URL`).
final class ConcurrentWritesTests: XCTestCase {
    /// The replay of LookForRealBurger lost 5–10 of 24 likes sent together with other work
    /// ("database is locked"): a deferred SQLite transaction that read before it wrote.
    func testTwentyFourLikesAtOnceWhileOtherWritesRunAreAllKept() async throws {
        try await withListeningApp { app, port in
            let author = try await app.member("작성자")
            let review = try await app.review(author.token, place: try await app.place(author.token))
            var fans: [Member] = []
            for index in 0..<24 { fans.append(try await app.member("팬\(index)")) }
            let client = PortClient(port: port)
            let statuses = try await withThrowingTaskGroup(of: (String, UInt).self) { group in
                for fan in fans {
                    group.addTask { ("like", try await client.send(.PUT, "/api/v1/burger-map/reviews/\(review)/like", token: fan.token).status.code) }
                    // Other writes beside them, as the replay had: a comment (an inbox entry and its
                    // push work for the author), a bookmark, and the fan's push preferences.
                    group.addTask {
                        ("comment", try await client.send(.POST, "/api/v1/burger-map/reviews/\(review)/comments", json: ["text": "저도 좋아해요"],
                                                          token: fan.token).status.code)
                    }
                    group.addTask { ("bookmark", try await client.send(.PUT, "/api/v1/burger-map/reviews/\(review)/bookmark", token: fan.token).status.code) }
                    group.addTask { ("preferences", try await client.send(.PUT, "/api/v1/push/preferences", json: Self.preferences, token: fan.token).status.code) }
                }
                var statuses: [String: [UInt: Int]] = [:]
                for try await (kind, status) in group { statuses[kind, default: [:]][status, default: 0] += 1 }
                return statuses
            }
            XCTAssertEqual(statuses["like"], [200: 24], "\(statuses)")
            XCTAssertEqual(statuses["bookmark"], [200: 24], "\(statuses)")
            XCTAssertEqual(statuses["comment"], [201: 24], "\(statuses)")
            XCTAssertEqual(statuses["preferences"], [200: 24], "\(statuses)")
            let detail = try await app.send(.GET, "/api/v1/burger-map/reviews/\(review)")
            let counts = try detail.object()
            XCTAssertEqual(counts["likeCount"] as? Int, 24, detail.text)
            XCTAssertEqual(counts["commentCount"] as? Int, 24, detail.text)
            let likes = try await app.db.sql.count(SQLIdentifier("burger_reactions")) { $0.where("review_id", .equal, review).where("kind", .equal, "like") }
            XCTAssertEqual(likes, 24)
        }
    }

    /// The probe's `p_pg_races.py`: 90 saves of one account's preferences, subscriptions and
    /// addresses at once gave 500s on both databases, 22 addresses (cap 10) and 12 defaults.
    func testNinetyParallelSavesOfOneAccountsRowsGiveNo5xxAndKeepTheirCaps() async throws {
        try await withListeningApp(adjust: { $0.push.services = PushSettings.publicServices + ["http://127.0.0.1:9"] }) { app, port in
            let buyer = try await app.member("구매자")
            let client = PortClient(port: port)
            let browsers = (0..<10).map { _ in PushReceiverKeys() }
            let statuses = try await withThrowingTaskGroup(of: (String, UInt).self) { group in
                for index in 0..<30 {
                    group.addTask { ("preferences", try await client.send(.PUT, "/api/v1/push/preferences", json: Self.preferences, token: buyer.token).status.code) }
                    // Ten browsers, each subscribed three times at once (two tabs of one browser).
                    group.addTask {
                        ("subscription", try await client.send(.POST, "/api/v1/push/subscriptions",
                                                               json: Subscription(browsers[index % 10], endpoint: "http://127.0.0.1:9/push/\(index % 10)"), token: buyer.token).status.code)
                    }
                    group.addTask {
                        ("address", try await client.send(.POST, "/api/v1/banchan/addresses", json: Self.address(index, makeDefault: index % 2 == 0),
                                                          token: buyer.token).status.code)
                    }
                }
                var statuses: [String: [UInt: Int]] = [:]
                for try await (kind, status) in group { statuses[kind, default: [:]][status, default: 0] += 1 }
                return statuses
            }
            XCTAssertEqual(statuses["preferences"], [200: 30], "\(statuses)")
            XCTAssertEqual(statuses["subscription"], [201: 30], "\(statuses)")
            XCTAssertEqual(statuses["address"]?[201], 10, "\(statuses)")
            XCTAssertEqual(statuses["address"]?[409], 20, "\(statuses)")
            let addresses = try await app.send(.GET, "/api/v1/banchan/addresses", token: buyer.token)
            let items = try XCTUnwrap(try addresses.object()["items"] as? [[String: Any]])
            XCTAssertEqual(items.count, 10)
            XCTAssertEqual(items.filter { $0["isDefault"] as? Bool == true }.count, 1, addresses.text)
            let subscriptions = try await app.db.sql.count(SQLIdentifier("push_subscriptions")) { $0.where("user_id", .equal, buyer.id) }
            XCTAssertEqual(subscriptions, 10)

            // Then the default moved thirty times at once: still exactly one.
            let ids = items.compactMap { ($0["id"] as? String).flatMap(UUID.init(uuidString:)) }
            let moves = try await withThrowingTaskGroup(of: UInt.self) { group in
                for index in 0..<30 {
                    let id = ids[index % ids.count]
                    group.addTask { try await client.send(.PUT, "/api/v1/banchan/addresses/\(id)", json: Self.address(index, makeDefault: true), token: buyer.token).status.code }
                }
                var moves: [UInt: Int] = [:]
                for try await status in group { moves[status, default: 0] += 1 }
                return moves
            }
            XCTAssertEqual(moves, [200: 30])
            let listed = try await app.send(.GET, "/api/v1/banchan/addresses", token: buyer.token)
            let after = try XCTUnwrap(try listed.object()["items"] as? [[String: Any]])
            XCTAssertEqual(after.filter { $0["isDefault"] as? Bool == true }.count, 1)
        }
    }

    /// The database itself keeps "one default address": a second default is refused by its index.
    func testTheDatabaseRefusesASecondDefaultAddress() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("구매자")
            for index in 0..<2 {
                let saved = try await app.send(.POST, "/api/v1/banchan/addresses", json: Self.address(index, makeDefault: true), token: buyer.token)
                XCTAssertEqual(saved.status, .created, saved.text)
            }
            do {
                try await app.db.sql.raw("UPDATE banchan_addresses SET is_default = \(bind: true) WHERE user_id = \(bind: buyer.id)").run()
                XCTFail("two defaults were stored")
            } catch let error as any DatabaseError where error.isConstraintFailure {}
        }
    }

    /// The probe's 300 address-book changes in 2.9 s: an account's changes have a budget (60 an hour),
    /// a refused one changes nothing, and a refused change (404, 409) does not use it up.
    func testAnAddressBookHasABudgetOfChanges() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("이사하는사람")
            let first = try await app.send(.POST, "/api/v1/banchan/addresses", json: Self.address(0, makeDefault: true), token: buyer.token)
            XCTAssertEqual(first.status, .created, first.text)
            let id = try XCTUnwrap(try first.object()["id"] as? String)
            let unknown = try await app.send(.PUT, "/api/v1/banchan/addresses/\(UUID())", json: Self.address(1, makeDefault: false), token: buyer.token)
            XCTAssertEqual(unknown.status, .notFound, "refused: it does not count")
            for index in 1..<60 {
                let edited = try await app.send(.PUT, "/api/v1/banchan/addresses/\(id)", json: Self.address(index, makeDefault: false), token: buyer.token)
                XCTAssertEqual(edited.status, .ok, "change \(index)")
            }
            let refused = try await app.send(.PUT, "/api/v1/banchan/addresses/\(id)", json: Self.address(99, makeDefault: false), token: buyer.token)
            XCTAssertEqual(refused.status, .tooManyRequests)
            XCTAssertEqual(refused.errorCode, "too_many_address_changes")
            XCTAssertNotNil(refused.headers.first(name: "Retry-After"))
            let listed = try await app.send(.GET, "/api/v1/banchan/addresses", token: buyer.token)
            let items = try XCTUnwrap(try listed.object()["items"] as? [[String: Any]])
            XCTAssertEqual(items.first?["recipient"] as? String, "받는이59", "the refused change changed nothing")
        }
    }

    static let preferences: [String: Bool] = ["chat": true, "requests": false, "social": true, "orders": true, "groupGames": false]

    struct Address: Encodable {
        let recipient, phone, postcode, address, addressDetail: String
        let isDefault: Bool
    }

    static func address(_ index: Int, makeDefault: Bool) -> Address {
        Address(recipient: "받는이\(index)", phone: "010-1234-56\(String(format: "%02d", index % 100))", postcode: "04524",
                address: "서울 중구 세종대로 \(index + 1)", addressDetail: "\(index + 1)층", isDefault: makeDefault)
    }

    /// `PushSubscription.toJSON()` of a browser.
    struct Subscription: Encodable {
        struct Keys: Encodable { let p256dh, auth: String }
        let endpoint: String
        let keys: Keys

        init(_ browser: PushReceiverKeys, endpoint: String) {
            self.endpoint = endpoint
            keys = Keys(p256dh: browser.privateKey.publicKey.x963Representation.base64URLEncodedString(), auth: browser.auth.base64URLEncodedString())
        }
    }
}
