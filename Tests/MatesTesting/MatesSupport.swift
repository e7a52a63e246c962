import Accounts
package import Fluent
import Mates
package import Messaging
import NIOConcurrencyHelpers
import Notifications
import Platform
import SesacStudyApp
import SocketIO
package import WhatWeEatTesting
import XCTVapor

/// Keeps the codes the server sends, as a phone or a mailbox would (the SMTP client has its own
/// tests against a real SMTP server).
package final class CodeInbox: CodeSender {
    private let codes = NIOLockedValueBox<[(destination: String, code: String, text: String)]>([])

    package func send(_ code: OneTimeCode) async throws {
        codes.withLockedValue { $0.append((code.destination, code.code, code.text)) }
    }

    package func last(to destination: String) -> String? { codes.withLockedValue { $0.last { $0.destination == destination }?.code } }
    package func lastText() -> String? { codes.withLockedValue { $0.last?.text } }
    package var count: Int { codes.withLockedValue { $0.count } }
}

package enum MatesJSON {
    package struct Person: Decodable { package let id: UUID; package let nickname: String; package let gender: String; package let topics: [String]; package let reputation: [Int]; package let distanceMeters: Int?; package let avatar: Int; package let background: Int }
    package struct Nearby: Decodable { package let people: [Person]; package let recommendedTopics: [String]; package let requestedMe: [Person]; package let radiusMeters: Int }
    package struct LastMatch: Decodable { package let matchId: UUID; package let with: Person?; package let reason: String; package let endedByMe: Bool; package let reviewed: Bool }
    package struct State: Decodable { package let state: String; package let matchId: UUID?; package let with: Person?; package let since: Date?; package let reviewed: Bool; package let lastMatch: LastMatch?; package let searchBlockedUntil: Date? }
    package struct Request: Decodable { package let id: UUID?; package let to: UUID; package let matched: Bool; package let state: State }
    package struct Profile: Decodable { package let id: UUID; package let nickname: String; package let gender: String; package let birthYear: Int?; package let topics: [String]; package let searchable: Bool; package let ageMin: Int; package let ageMax: Int; package let avatar: Int; package let background: Int; package let reputation: [Int]; package let comments: [String]; package let state: String; package let suspended: Bool }
    package struct Message: Decodable { package let id: UUID; package let matchId: UUID; package let senderId: UUID?; package let kind: String; package let text: String; package let pin: String?; package let cursor: String }
    package struct Chat: Decodable { package let items: [Message]; package let nextCursor: String?; package let unreadCount: Int; package let partnerReadAt: Date?; package let open: Bool }
    package struct Collection: Decodable { package let avatars: [Int]; package let backgrounds: [Int]; package let avatar: Int; package let background: Int }
    /// The answer to a purchase: the collection it changed.
    package struct Purchase: Decodable { package let collection: Collection }
}

/// Seoul City Hall, and points east of it at a given distance.
package enum MatesPlaces {
    package static let cityHall = (lat: 37.5665, lon: 126.9780)
    /// About `meters` east of City Hall.
    package static func east(_ meters: Double) -> (lat: Double, lon: Double) {
        (cityHall.lat, cityHall.lon + meters / (111_320 * cos(cityHall.lat * .pi / 180)))
    }
}

extension Application {
    package static let mates = "/api/v1/mates"

    /// The codes sent by this app (installed on first use).
    package var codeInbox: CodeInbox {
        if let inbox = codeSender as? CodeInbox { return inbox }
        let inbox = CodeInbox()
        codeSender = inbox
        return inbox
    }

    /// A member who confirmed a phone number and set gender and birth year.
    package func mate(_ nickname: String, birthYear: Int = 1995, gender: String = "female", ageMin: Int = 18, ageMax: Int = 65,
              admin: Bool = false) async throws -> Member {
        let inbox = codeInbox
        let member = try await self.member(nickname, admin: admin)
        let phone = "+8210" + String(format: "%08d", Int.random(in: 0..<100_000_000))
        let sent = try await send(.POST, "\(Self.mates)/verification", json: ["channel": "phone", "destination": phone], token: member.token)
        XCTAssertEqual(sent.status, .accepted, sent.text)
        let code = try XCTUnwrap(inbox.last(to: phone))
        let confirmed = try await send(.POST, "\(Self.mates)/verification/confirm", json: ["destination": phone, "code": code], token: member.token)
        XCTAssertEqual(confirmed.status, .ok, confirmed.text)
        let profile = try await send(.PUT, "\(Self.mates)/profile", json: MatesProfileBody(gender: gender, birthYear: birthYear, ageMin: ageMin, ageMax: ageMax),
                                     token: member.token)
        XCTAssertEqual(profile.status, .ok, profile.text)
        return member
    }

    package struct MatesProfileBody: Encodable {
        package var gender: String?
        package var birthYear: Int?
        package var topics: [String]?
        package var searchable: Bool?
        package var ageMin: Int?
        package var ageMax: Int?

        package init(gender: String? = nil, birthYear: Int? = nil, topics: [String]? = nil, searchable: Bool? = nil, ageMin: Int? = nil, ageMax: Int? = nil) {
            self.gender = gender
            self.birthYear = birthYear
            self.topics = topics
            self.searchable = searchable
            self.ageMin = ageMin
            self.ageMax = ageMax
        }
    }

    package struct QueueBody: Encodable {
        package let lat: Double
        package let lon: Double
        package let topics: [String]

        package init(lat: Double, lon: Double, topics: [String]) {
            self.lat = lat
            self.lon = lon
            self.topics = topics
        }
    }

    @discardableResult
    package func search(_ member: Member, at point: (lat: Double, lon: Double) = MatesPlaces.cityHall, topics: [String] = ["알고리즘"]) async throws -> MatesJSON.State {
        let response = try await send(.POST, "\(Self.mates)/queue", json: QueueBody(lat: point.lat, lon: point.lon, topics: topics), token: member.token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try response.json(MatesJSON.State.self)
    }

    /// `asker` asks `accepter`, who accepts: the match's id.
    package func matchPair(_ asker: Member, _ accepter: Member) async throws -> UUID {
        try await search(asker)
        try await search(accepter, at: MatesPlaces.east(300))
        let asked = try await send(.POST, "\(Self.mates)/requests", json: ["to": accepter.id], token: asker.token)
        XCTAssertEqual(asked.status, .created, asked.text)
        let request = try XCTUnwrap(try asked.json(MatesJSON.Request.self).id)
        let accepted = try await send(.POST, "\(Self.mates)/requests/\(request)/accept", token: accepter.token)
        XCTAssertEqual(accepted.status, .ok, accepted.text)
        return try XCTUnwrap(try accepted.json(MatesJSON.State.self).matchId)
    }

    package func mateState(_ member: Member) async throws -> MatesJSON.State {
        try await send(.GET, "\(Self.mates)/state", token: member.token).json(MatesJSON.State.self)
    }
}

extension Application {
    /// Mates' rules read this clock from now on (code lifetimes and limits, dodge pauses, the
    /// search sweep): the test moves it instead of rewriting rows.
    package func useTestClock(_ clock: TestClock = TestClock()) -> TestClock {
        matesEnvironment.clock = { clock.now }
        return clock
    }
}
