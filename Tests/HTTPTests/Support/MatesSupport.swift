import BurgerMap
import Fluent
import LookForRealBurgerApp
import Mates
import MenuGame
import MenuGameApp
import Messaging
import NIOConcurrencyHelpers
import Platform
import SesacStudyApp
import XCTVapor

/// Keeps the codes the server sends, as a phone or a mailbox would (the SMTP client has its own
/// tests against a real SMTP server).
final class CodeInbox: CodeSender {
    private let codes = NIOLockedValueBox<[(destination: String, code: String, text: String)]>([])

    func send(_ code: OneTimeCode) async throws {
        codes.withLockedValue { $0.append((code.destination, code.code, code.text)) }
    }

    func last(to destination: String) -> String? { codes.withLockedValue { $0.last { $0.destination == destination }?.code } }
    func lastText() -> String? { codes.withLockedValue { $0.last?.text } }
    var count: Int { codes.withLockedValue { $0.count } }
}

enum MatesJSON {
    struct Person: Decodable { let id: UUID; let nickname: String; let gender: String; let topics: [String]; let reputation: [Int]; let distanceMeters: Int?; let avatar: Int; let background: Int }
    struct Nearby: Decodable { let people: [Person]; let recommendedTopics: [String]; let requestedMe: [Person]; let radiusMeters: Int }
    struct LastMatch: Decodable { let matchId: UUID; let with: Person?; let reason: String; let endedByMe: Bool; let reviewed: Bool }
    struct State: Decodable { let state: String; let matchId: UUID?; let with: Person?; let since: Date?; let reviewed: Bool; let lastMatch: LastMatch?; let searchBlockedUntil: Date? }
    struct Request: Decodable { let id: UUID?; let to: UUID; let matched: Bool; let state: State }
    struct Profile: Decodable { let id: UUID; let nickname: String; let gender: String; let birthYear: Int?; let topics: [String]; let searchable: Bool; let ageMin: Int; let ageMax: Int; let avatar: Int; let background: Int; let reputation: [Int]; let comments: [String]; let state: String; let suspended: Bool }
    struct Message: Decodable { let id: UUID; let matchId: UUID; let senderId: UUID?; let kind: String; let text: String; let pin: String?; let cursor: String }
    struct Chat: Decodable { let items: [Message]; let nextCursor: String?; let unreadCount: Int; let partnerReadAt: Date?; let open: Bool }
    struct Collection: Decodable { let avatars: [Int]; let backgrounds: [Int]; let avatar: Int; let background: Int }
}

/// Seoul City Hall, and points east of it at a given distance.
enum MatesPlaces {
    static let cityHall = (lat: 37.5665, lon: 126.9780)
    /// About `meters` east of City Hall.
    static func east(_ meters: Double) -> (lat: Double, lon: Double) {
        (cityHall.lat, cityHall.lon + meters / (111_320 * cos(cityHall.lat * .pi / 180)))
    }
}

extension Application {
    static let mates = "/api/v1/mates"

    /// The codes sent by this app (installed on first use).
    var codeInbox: CodeInbox {
        if let inbox = codeSender as? CodeInbox { return inbox }
        let inbox = CodeInbox()
        codeSender = inbox
        return inbox
    }

    /// A member who confirmed a phone number and set gender and birth year.
    func mate(_ nickname: String, birthYear: Int = 1995, gender: String = "female", ageMin: Int = 18, ageMax: Int = 65,
              admin: Bool = false) async throws -> Member {
        let inbox = codeInbox
        let member = try await self.member(nickname, admin: admin)
        let phone = "+8210" + String(format: "%08d", Int.random(in: 0..<100_000_000))
        // Every test request comes from one address, which may ask for a code once a minute:
        // earlier codes are forgotten so each helper-made mate starts clean.
        try await MatesVerificationCode.query(on: db).delete()
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

    struct MatesProfileBody: Encodable {
        var gender: String?
        var birthYear: Int?
        var topics: [String]?
        var searchable: Bool?
        var ageMin: Int?
        var ageMax: Int?
    }

    struct QueueBody: Encodable {
        let lat: Double
        let lon: Double
        let topics: [String]
    }

    @discardableResult
    func search(_ member: Member, at point: (lat: Double, lon: Double) = MatesPlaces.cityHall, topics: [String] = ["알고리즘"]) async throws -> MatesJSON.State {
        let response = try await send(.POST, "\(Self.mates)/queue", json: QueueBody(lat: point.lat, lon: point.lon, topics: topics), token: member.token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try response.json(MatesJSON.State.self)
    }

    /// `asker` asks `accepter`, who accepts: the match's id.
    func matchPair(_ asker: Member, _ accepter: Member) async throws -> UUID {
        try await search(asker)
        try await search(accepter, at: MatesPlaces.east(300))
        let asked = try await send(.POST, "\(Self.mates)/requests", json: ["to": accepter.id], token: asker.token)
        XCTAssertEqual(asked.status, .created, asked.text)
        let request = try XCTUnwrap(try asked.json(MatesJSON.Request.self).id)
        let accepted = try await send(.POST, "\(Self.mates)/requests/\(request)/accept", token: accepter.token)
        XCTAssertEqual(accepted.status, .ok, accepted.text)
        return try XCTUnwrap(try accepted.json(MatesJSON.State.self).matchId)
    }

    func mateState(_ member: Member) async throws -> MatesJSON.State {
        try await send(.GET, "\(Self.mates)/state", token: member.token).json(MatesJSON.State.self)
    }
}
