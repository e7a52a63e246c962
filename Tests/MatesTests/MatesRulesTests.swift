import Accounts
@testable import Mates
import MatesTesting
import Notifications
import Platform
import SesacStudyApp
import WhatWeEatTesting
import XCTest

final class MatesRulesTests: XCTestCase {
    func testDestinationsAreNormalizedOrRefused() throws {
        XCTAssertEqual(try MatesRules.normalizedDestination("010-1234-5678", channel: .phone), "+821012345678")
        XCTAssertEqual(try MatesRules.normalizedDestination("+82 10 1234 5678", channel: .phone), "+821012345678")
        XCTAssertEqual(try MatesRules.normalizedDestination("+1 (415) 555-0100", channel: .phone), "+14155550100")
        for bad in ["", "12345", "010-1234-567a", "+0123456789", "+1234567890123456", "１２３４５６７８９"] {
            XCTAssertThrowsError(try MatesRules.normalizedDestination(bad, channel: .phone), bad)
        }
        XCTAssertEqual(try MatesRules.normalizedDestination("  Mina@Example.COM ", channel: .email), "mina@example.com")
        for bad in ["mina", "mina@", "@example.com", "mina@example", "mi na@example.com", "a@b@c.com", "mina@.com", "<mina@example.com>"] {
            XCTAssertThrowsError(try MatesRules.normalizedDestination(bad, channel: .email), bad)
        }
        XCTAssertEqual(MatesRules.masked("+821012345678", channel: .phone), "010-****-5678")
        XCTAssertEqual(MatesRules.masked("+82111234567", channel: .phone), "011-***-4567", "ten digits: three hidden")
        XCTAssertEqual(MatesRules.masked("+82212345678", channel: .phone), "+82*****5678", "not a mobile number: as before")
        XCTAssertEqual(MatesRules.masked("+447911123456", channel: .phone), "+44******3456", "another country's number as before")
        XCTAssertEqual(MatesRules.masked("mina@example.com", channel: .email), "m***@example.com")
    }

    func testCodesAreSixDigits() throws {
        XCTAssertEqual(try MatesRules.normalizedCode(" 012345 "), "012345")
        for bad in ["12345", "1234567", "12345a", "１２３４５６", ""] {
            XCTAssertThrowsError(try MatesRules.normalizedCode(bad), bad)
        }
    }

    func testAgesMustSuitBothSides() {
        XCTAssertTrue(MatesRules.agesMatch((30, 25...35), (28, 20...40)))
        XCTAssertFalse(MatesRules.agesMatch((30, 25...35), (40, 20...40)), "they are too old for me")
        XCTAssertFalse(MatesRules.agesMatch((30, 18...65), (28, 18...29)), "I am too old for them")
        let now = ISO8601DateFormatter().date(from: "2026-11-24T00:00:00Z")!
        XCTAssertEqual(MatesRules.age(birthYear: 1996, now: now), 30)
        XCTAssertNoThrow(try MatesRules.checkBirthYear(2012, now: now))
        XCTAssertThrowsError(try MatesRules.checkBirthYear(2013, now: now), "under 14")
        XCTAssertThrowsError(try MatesRules.checkAgeRange(min: 30, max: 29))
    }

    func testTopicsAreTidiedAndLimited() throws {
        XCTAssertEqual(try MatesRules.normalizedTopics(["  iOS  면접 ", "ios 면접", "점심"]), ["iOS 면접", "점심"])
        XCTAssertThrowsError(try MatesRules.normalizedTopics((0..<9).map(String.init)))
        XCTAssertThrowsError(try MatesRules.normalizedTopics(["a\u{0007}b"]))
        XCTAssertThrowsError(try MatesRules.normalizedTopics([String(repeating: "z", count: 21)]))
    }

    func testMostWantedTopicsCountPeopleNotMentions() {
        let lists = [["알고리즘", "Swift"], ["알고리즘"], ["swift", "SWIFT", "점심"], ["점심"], ["점심"]]
        XCTAssertEqual(TopicRanking.mostWanted(lists, limit: 2), ["점심", "Swift"], "점심 three people; Swift and 알고리즘 two each, ties by name")
    }

    func testDodgePenaltyGrowsWithinADay() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        XCTAssertNil(DodgePenalty.blockedUntil(dodgesInWindow: 0, now: now))
        // One, two and three minutes, as the 새싹 스터디 apps tell their users; never longer.
        for (dodges, minutes) in [(1, 1), (2, 2), (3, 3), (4, 3), (20, 3)] {
            XCTAssertEqual(DodgePenalty.blockedUntil(dodgesInWindow: dodges, now: now), now.addingTimeInterval(Double(minutes) * 60), "dodge \(dodges)")
        }
        XCTAssertEqual(DodgePenalty.levels, 3)
        XCTAssertEqual((1...5).map { SesacWire.penaltyStatus(dodgesToday: $0) }, [203, 204, 205, 205, 205])
    }

    func testReviewsReportsAndMessagesAreChecked() throws {
        XCTAssertEqual(try MatesRules.checkReputation([1, 0, 0, 1, 0, 1]), [true, false, false, true, false, true])
        for bad in [[1, 0], [1, 0, 0, 1, 0, 1, 0], [2, 0, 0, 0, 0, 0], [-1, 0, 0, 0, 0, 0]] {
            XCTAssertThrowsError(try MatesRules.checkReputation(bad), "\(bad)")
        }
        XCTAssertEqual(try MatesRules.checkReport(categories: ["rude", "rude", "spam"], comment: " 늦었어요 ").categories, [.rude, .spam])
        XCTAssertThrowsError(try MatesRules.checkReport(categories: [], comment: ""))
        XCTAssertThrowsError(try MatesRules.checkReport(categories: ["mean"], comment: ""))
        XCTAssertEqual(try MatesRules.checkMessage("안녕\n하세요"), "안녕\n하세요")
        XCTAssertThrowsError(try MatesRules.checkMessage(" \n "))
        XCTAssertThrowsError(try MatesRules.checkMessage(String(repeating: "가", count: 1_001)))
        XCTAssertThrowsError(try MatesRules.checkMessage("a\u{0000}b"))
    }

    func testTheShopCatalogHasFreeFirstItemsAndUniqueProducts() {
        XCTAssertEqual(MatesShopCatalog.items.filter { $0.price == 0 }.map(\.id), ["avatar-0", "background-0"])
        let products = MatesShopCatalog.items.compactMap(\.productID)
        XCTAssertEqual(Set(products).count, products.count)
        XCTAssertEqual(MatesShopCatalog.item(productID: "com.whatweeat.mates.background7")?.index, 7)
        XCTAssertNil(MatesShopCatalog.item(productID: "com.whatweeat.mates.avatar0"), "free items are not sold")
    }

    // MARK: Public positions (the 2026-11-26 probe, item 2)

    func testAPublicPositionSaysWhichSquareAndNothingFiner() {
        let person = UUID(), since = Date(timeIntervalSince1970: 1_790_000_000.123456)
        let anchor = Coordinate(unchecked: 37.5665, 126.9780)
        let square = SearchPositionBlur.cell(of: anchor)
        let shown = SearchPositionBlur.publicPosition(of: anchor, person: person, since: since)
        // Anywhere in the same square gives the very same answer: the point inside is not in it.
        var generator = SystemRandomNumberGenerator()
        var sameSquare = 0
        for _ in 0..<500 {
            let point = Coordinate(unchecked: anchor.lat + Double.random(in: -0.002...0.002, using: &generator),
                                   anchor.lon + Double.random(in: -0.002...0.002, using: &generator))
            let other = SearchPositionBlur.cell(of: point)
            guard other.row == square.row, other.column == square.column else { continue }
            sameSquare += 1
            XCTAssertEqual(SearchPositionBlur.publicPosition(of: point, person: person, since: since), shown)
        }
        XCTAssertGreaterThan(sameSquare, 50)
        // Squares are about 200 m on each side, and the pin stays within its offset of the centre.
        let east = SearchPositionBlur.cell(of: Coordinate(unchecked: square.center.lat, square.center.lon + 0.003))
        XCTAssertEqual(square.center.distanceMeters(to: Coordinate(unchecked: square.center.lat, east.center.lon)) / Double(east.column - square.column), 200, accuracy: 2)
        XCTAssertLessThanOrEqual(square.center.distanceMeters(to: shown), SearchPositionBlur.maxOffsetMeters * 2.squareRoot() + 0.5)
        // Another search (or another person) moves the pin around the same centre; the same search does not.
        XCTAssertEqual(SearchPositionBlur.publicPosition(of: anchor, person: person, since: since), shown)
        XCTAssertNotEqual(SearchPositionBlur.publicPosition(of: anchor, person: person, since: since.addingTimeInterval(1)), shown)
        XCTAssertNotEqual(SearchPositionBlur.publicPosition(of: anchor, person: UUID(), since: since), shown)
        // Near the poles and the date line the grid still holds.
        for edge in [Coordinate(unchecked: 89.9999, 179.9999), Coordinate(unchecked: -89.9999, -180), Coordinate(unchecked: 0, 180)] {
            let pin = SearchPositionBlur.publicPosition(of: edge, person: person, since: since)
            XCTAssertTrue((-90...90).contains(pin.lat) && (-180...180).contains(pin.lon), "\(edge) → \(pin)")
        }
    }

    func testDistancesAreToldInSteps() {
        XCTAssertEqual([0, 49, 51, 149, 151, 1_234, 1_250].map { SearchPositionBlur.shownDistance(Double($0)) }, [100, 100, 100, 100, 200, 1_200, 1_300])
    }

    /// Budgets and the chat socket count networks: an IPv4 address is its own (a carrier's NAT
    /// puts strangers in one /24), an IPv6 address its /64 (devices rotate the rest), with the /48
    /// above it; an IPv4-mapped address is the IPv4 address.
    func testNetworksOfAddresses() {
        XCTAssertEqual(ClientNetwork(address: "203.0.113.7").key, "203.0.113.7")
        XCTAssertNil(ClientNetwork(address: "203.0.113.7").wideKey)
        XCTAssertNotEqual(ClientNetwork(address: "203.0.113.7"), ClientNetwork(address: "203.0.113.8"))
        XCTAssertEqual(ClientNetwork(address: "2001:db8:1:2::10").key, "2001:db8:1:2::/64")
        XCTAssertEqual(ClientNetwork(address: "2001:db8:1:2::10").wideKey, "2001:db8:1::/48")
        XCTAssertEqual(ClientNetwork(address: "2001:0DB8:0001:0002:a1b2:c3d4:e5f6:7788").key, "2001:db8:1:2::/64")
        XCTAssertEqual(ClientNetwork(address: "fe80::1%en0").key, "fe80:0:0:0::/64")
        XCTAssertEqual(ClientNetwork(address: "::ffff:192.0.2.1").key, "192.0.2.1")
        XCTAssertNil(ClientNetwork(address: "::ffff:192.0.2.1").wideKey)
        XCTAssertNotEqual(ClientNetwork(address: "2001:db8:1:2::10"), ClientNetwork(address: "2001:db8:1:3::10"))
        XCTAssertEqual(ClientNetwork(address: "2001:db8:1:2::10").wideKey, ClientNetwork(address: "2001:db8:1:3::10").wideKey,
                       "two /64s of one site share its /48")
        XCTAssertNotEqual(ClientNetwork(address: "2001:db8:1:2::10").wideKey, ClientNetwork(address: "2001:db8:2:2::10").wideKey)
        XCTAssertEqual(ClientNetwork(address: "not:an:address::zz").key, "not:an:address::zz", "kept as it is, compared exactly")
        // Every address a phone may pick inside its /64 is one client.
        let rotated = (0..<100).map { ClientNetwork(address: "2001:db8:7:9:\(String($0, radix: 16)):1:2:3") }
        XCTAssertEqual(Set(rotated.map(\.key)), ["2001:db8:7:9::/64"])
    }

    /// Codes are counted by the inbox they reach, not by how the address is spelled (the
    /// 2026-11-27 probe, finding 9: six codes reached one Gmail inbox within a minute).
    func testDestinationsAreCountedByInbox() throws {
        func inbox(_ raw: String, _ channel: VerificationChannel = .email) throws -> String {
            MatesRules.inboxKey(try MatesRules.normalizedDestination(raw, channel: channel), channel: channel)
        }
        let gmail = try inbox("victim@gmail.com")
        for spelling in ["Victim@Gmail.com", "victim+1@gmail.com", "vic.tim@gmail.com", "v.i.c.t.i.m+x@googlemail.com", "victim@googlemail.com"] {
            XCTAssertEqual(try inbox(spelling), gmail, spelling)
        }
        XCTAssertEqual(try inbox("mina+shop@example.com"), "mina@example.com", "a +tag reaches the same inbox on every domain")
        XCTAssertNotEqual(try inbox("mi.na@example.com"), try inbox("mina@example.com"), "dots matter outside Gmail")
        XCTAssertEqual(try inbox("+tag@example.com"), "+tag@example.com", "a name that is all tag is kept")
        // A Korean number with or without its trunk 0, written any way, is one phone.
        let phone = try inbox("010-1234-5678", .phone)
        for spelling in ["+82 010-1234-5678", "+82 10 1234 5678", "+820010-1234-5678", "01012345678"] {
            XCTAssertEqual(try inbox(spelling, .phone), phone, spelling)
        }
        XCTAssertEqual(phone, "+821012345678")
        XCTAssertTrue(MatesRules.phoneIsIn(["82"], phone))
        XCTAssertFalse(MatesRules.phoneIsIn(["82"], try inbox("+1 (415) 555-0100", .phone)))
        XCTAssertTrue(MatesRules.phoneIsIn(["82", "1"], try inbox("+1 (415) 555-0100", .phone)))
    }
}
