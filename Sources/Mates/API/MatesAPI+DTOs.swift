import Accounts
import Notifications
import Payments
import Platform
import Vapor

// Bodies and answers of `/api/v1/mates`. Field names are the issue's contract (docs/MATES.md).

struct VerificationBody: Content {
    let channel: VerificationChannel?
    let destination: String?
}

struct VerificationSent: Content {
    let channel: VerificationChannel
    /// Masked: `010-****-5678`.
    let destination: String
    let expiresAt: Date
    let resendAfterSeconds: Int
}

struct ConfirmBody: Content {
    /// Optional: an address with `@` is an email, anything else a phone number.
    let channel: VerificationChannel?
    let destination: String?
    let code: String?
}

struct ProfileBody: Content {
    let gender: MatesGender?
    let birthYear: Int?
    let topics: [String]?
    let searchable: Bool?
    let ageMin: Int?
    let ageMax: Int?
}

struct VerifiedResponse: Content, Hashable {
    let channel: String
    let destination: String
}

struct MatesProfileResponse: Content, Hashable {
    let id: UUID
    let nickname: String
    let gender: String
    @NullEncoded var birthYear: Int?
    let topics: [String]
    let searchable: Bool
    let ageMin: Int
    let ageMax: Int
    let avatar: Int
    let background: Int
    /// Six counters, in the order of `reputationCategories`.
    let reputation: [Int]
    let reputationCategories: [String]
    /// Review comments received, newest first.
    let comments: [String]
    let state: MatesState
    let verified: VerifiedResponse
    let suspended: Bool

    init(_ profile: MatesProfile, nickname: String, comments: [String]) throws {
        self.init(profile.snapshot, nickname: nickname, comments: comments)
    }

    init(_ profile: MatesProfileSnapshot, nickname: String, comments: [String]) {
        id = profile.id
        self.nickname = nickname
        gender = profile.gender
        birthYear = profile.birthYear
        topics = profile.topics
        searchable = profile.searchable
        ageMin = profile.ageMin
        ageMax = profile.ageMax
        avatar = profile.avatar
        background = profile.background
        reputation = profile.reputation
        reputationCategories = ReputationCategory.allCases.map(\.rawValue)
        self.comments = comments
        state = profile.state
        verified = VerifiedResponse(channel: profile.verifiedChannel, destination: profile.verifiedMasked)
        suspended = profile.suspended
    }
}

package struct QueueBody: Content {
    package let lat: Double?
    package let lon: Double?
    package let topics: [String]?
}

struct MatePersonResponse: Content, Hashable {
    let id: UUID
    let nickname: String
    let gender: String
    let topics: [String]
    let reputation: [Int]
    @NullEncoded var distanceMeters: Int?
    let avatar: Int
    let background: Int

    init(_ person: MatePerson) {
        id = person.id
        nickname = person.nickname
        gender = person.gender
        topics = person.topics
        reputation = person.reputation
        distanceMeters = person.distanceMeters.map { SearchPositionBlur.shownDistance($0) }
        avatar = person.avatar
        background = person.background
    }
}

/// `GET /nearby`'s answer: `{people, radiusMeters, recommendedTopics, requestedMe}`, each person as
/// `MatePersonResponse` encodes it. Written by hand (`JSONBytes`): with Foundation's encoder the
/// JSON of fifty people cost more than finding them. `MatesAPITests` checks both agree.
enum NearbyJSON {
    static func write(people: [MatePerson], recommendedTopics: [String], requestedMe: [MatePerson], radiusMeters: Int) -> JSONBytes {
        var json = JSONBytes(capacity: 256 * (people.count + requestedMe.count) + 512)
        json.raw(#"{"people":"#)
        list(&json, people)
        json.raw(#","radiusMeters":"#)
        json.int(radiusMeters)
        json.raw(#","recommendedTopics":"#)
        json.strings(recommendedTopics)
        json.raw(#","requestedMe":"#)
        list(&json, requestedMe)
        json.raw("}")
        return json
    }

    /// A list of people, looped here (`JSONBytes.list` is generic across modules: unspecialized).
    static func list(_ json: inout JSONBytes, _ people: [MatePerson]) {
        json.raw("[")
        for (position, one) in people.enumerated() {
            if position > 0 { json.raw(",") }
            person(&json, one)
        }
        json.raw("]")
    }

    /// One person, keys sorted as `AppJSON` sorts `MatePersonResponse`'s.
    static func person(_ json: inout JSONBytes, _ person: MatePerson) {
        json.raw(#"{"avatar":"#)
        json.int(person.avatar)
        json.raw(#","background":"#)
        json.int(person.background)
        json.raw(#","distanceMeters":"#)
        if let meters = person.distanceMeters { json.int(SearchPositionBlur.shownDistance(meters)) } else { json.raw("null") }
        json.raw(bytes: person.jsonAfterDistance
            ?? afterDistance(gender: person.gender, id: person.id, nickname: person.nickname, reputation: person.reputation, topics: person.topics))
    }

    /// A person's keys after `distanceMeters`, to the closing brace: the same on every answer
    /// that lists them, so the searching index keeps it (`SearchingIndex.Entry`).
    static func afterDistance(gender: String, id: UUID, nickname: String, reputation: [Int], topics: [String]) -> [UInt8] {
        var json = JSONBytes(capacity: 192)
        json.raw(#","gender":"#)
        json.string(gender)
        json.raw(#","id":"#)
        json.uuid(id)
        json.raw(#","nickname":"#)
        json.string(nickname)
        json.raw(#","reputation":"#)
        json.ints(reputation)
        json.raw(#","topics":"#)
        json.strings(topics)
        json.raw("}")
        return json.bytes
    }
}

struct LastMatchResponse: Content, Hashable {
    let matchId: UUID
    @NullEncoded var with: MatePersonResponse?
    let endedAt: Date
    /// `finished`, `dodged` or `suspended`.
    let reason: String
    let endedByMe: Bool
    let reviewed: Bool
}

struct MatesStateResponse: Content, Hashable {
    let state: MatesState
    @NullEncoded var matchId: UUID?
    @NullEncoded var with: MatePersonResponse?
    /// When the match began (matched) or the search started (searching).
    @NullEncoded var since: Date?
    /// Whether I reviewed `with` (false while matched: reviews come after).
    let reviewed: Bool
    /// The match that ended last (within a week), while not matched: its review may be due.
    @NullEncoded var lastMatch: LastMatchResponse?
    @NullEncoded var searchBlockedUntil: Date?
    /// Lines of the current match I have not read (0 when not matched).
    let unreadCount: Int

    init(_ info: MatesStateInfo, profile: MatesProfile, me: UUID) throws {
        self.init(info, profile: profile.snapshot, me: me)
    }

    init(_ info: MatesStateInfo, profile: MatesProfileSnapshot, me: UUID) {
        state = info.state
        matchId = info.match?.id
        with = info.partner.map(MatePersonResponse.init)
        since = info.state == .matched ? info.match?.createdAt : (info.state == .searching ? profile.queuedAt : nil)
        reviewed = info.reviewed
        // A match is someone's last only once it has ended.
        lastMatch = info.lastMatch.flatMap { last in last.match.endedAt.map { endedAt in
            LastMatchResponse(matchId: last.match.id ?? UUID(), with: last.partner.map(MatePersonResponse.init),
                              endedAt: endedAt, reason: last.match.endReason ?? "finished",
                              endedByMe: last.match.endedBy == me, reviewed: last.reviewed) }
        }
        searchBlockedUntil = info.searchBlockedUntil
        unreadCount = info.unreadCount
    }
}

struct RequestBody: Content {
    let to: UUID?
}

struct MatesRequestResponse: Content {
    /// Null when the other had asked first: then this request was the acceptance.
    @NullEncoded var id: UUID?
    let to: UUID
    let matched: Bool
    let state: MatesStateResponse
}

struct MatesReviewBody: Content {
    let matchId: UUID?
    let reputation: [Int]?
    let comment: String?
}

struct MatesReviewResponse: Content {
    let id: UUID
    let matchId: UUID
    let userId: UUID
    let reputation: [Int]
    let comment: String
    let createdAt: Date
}

struct MatesReportBody: Content {
    let userId: UUID?
    let categories: [String]?
    let comment: String?
}

struct MatesReportResponse: Content {
    let id: UUID
    let userId: UUID
    let categories: [String]
    let createdAt: Date
}

struct MessageBody: Content {
    let text: String?
    /// The client's own id for the line, echoed on the live socket.
    let clientId: String?
}

struct ChatPage: Content {
    let items: [ChatMessage]
    @NullEncoded var nextCursor: String?
    let unreadCount: Int
    /// The other side's read marker: messages up to this time were read.
    @NullEncoded var partnerReadAt: Date?
    /// False once the match ended: the history stays, sending is closed.
    let open: Bool
}

struct ChatReadBody: Content {
    let messageId: UUID?
}

struct ChatReadResponse: Content {
    @NullEncoded var readAt: Date?
    let unreadCount: Int
}

struct MenuGameStarted: Content {
    let pin: String
    /// Where the group's page is (the menu game's own).
    let link: String
    /// The host's device token when the caller sent none: the menu game knows its host by it.
    @NullEncoded var hostToken: String?
    let message: ChatMessage
}

struct ShopItemResponse: Content {
    let id: String
    let kind: MatesItemKind
    let index: Int
    let name: String
    let price: Int
    @NullEncoded var productId: String?
    let owned: Bool
}

struct ShopItemsResponse: Content {
    let items: [ShopItemResponse]
}

struct CollectionResponse: Content, Hashable {
    let avatars: [Int]
    let backgrounds: [Int]
    let avatar: Int
    let background: Int

    init(_ collection: MatesCollection) {
        avatars = collection.avatars
        backgrounds = collection.backgrounds
        avatar = collection.avatar
        background = collection.background
    }
}

struct PurchaseBody: Content {
    /// StoreKit 2's `jwsRepresentation` of the transaction.
    let signedTransaction: String?
}

struct PurchaseResponse: Content {
    let item: ShopItemResponse
    let collection: CollectionResponse
}

struct AppearanceBody: Content {
    let avatar: Int?
    let background: Int?
}
