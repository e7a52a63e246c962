import Accounts
import Notifications
import Payments
import Platform
import Vapor

// Bodies and answers of `/api/v1/mates`. Field names are the issue's contract (docs/MATES.md).

struct VerificationBody: Content {
    package let channel: VerificationChannel?
    package let destination: String?
}

struct VerificationSent: Content {
    package let channel: VerificationChannel
    /// Masked: `+82******5678`.
    package let destination: String
    package let expiresAt: Date
    let resendAfterSeconds: Int
}

struct ConfirmBody: Content {
    /// Optional: an address with `@` is an email, anything else a phone number.
    package let channel: VerificationChannel?
    package let destination: String?
    package let code: String?
}

struct ProfileBody: Content {
    package let gender: MatesGender?
    package let birthYear: Int?
    package let topics: [String]?
    package let searchable: Bool?
    package let ageMin: Int?
    package let ageMax: Int?
}

struct VerifiedResponse: Content {
    package let channel: String
    package let destination: String
}

struct MatesProfileResponse: Content {
    package let id: UUID
    package let nickname: String
    package let gender: String
    @NullEncoded package var birthYear: Int?
    package let topics: [String]
    package let searchable: Bool
    package let ageMin: Int
    package let ageMax: Int
    package let avatar: Int
    package let background: Int
    /// Six counters, in the order of `reputationCategories`.
    package let reputation: [Int]
    let reputationCategories: [String]
    /// Review comments received, newest first.
    package let comments: [String]
    package let state: MatesState
    package let verified: VerifiedResponse
    package let suspended: Bool

    package init(_ profile: MatesProfile, nickname: String, comments: [String]) throws {
        self.init(try profile.snapshot, nickname: nickname, comments: comments)
    }

    package init(_ profile: MatesProfileSnapshot, nickname: String, comments: [String]) {
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

package struct MatePersonResponse: Content {
    package let id: UUID
    package let nickname: String
    package let gender: String
    package let topics: [String]
    package let reputation: [Int]
    @NullEncoded package var distanceMeters: Int?
    package let avatar: Int
    package let background: Int

    package init(_ person: MatePerson) {
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
    package static func write(people: [MatePerson], recommendedTopics: [String], requestedMe: [MatePerson], radiusMeters: Int) -> JSONBytes {
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
    package static func person(_ json: inout JSONBytes, _ person: MatePerson) {
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

struct LastMatchResponse: Content {
    package let matchId: UUID
    @NullEncoded package var with: MatePersonResponse?
    package let endedAt: Date
    /// `finished`, `dodged` or `suspended`.
    package let reason: String
    package let endedByMe: Bool
    package let reviewed: Bool
}

struct MatesStateResponse: Content {
    package let state: MatesState
    @NullEncoded package var matchId: UUID?
    @NullEncoded package var with: MatePersonResponse?
    /// When the match began (matched) or the search started (searching).
    @NullEncoded package var since: Date?
    /// Whether I reviewed `with` (false while matched: reviews come after).
    package let reviewed: Bool
    /// The match that ended last (within a week), while not matched: its review may be due.
    @NullEncoded package var lastMatch: LastMatchResponse?
    @NullEncoded package var searchBlockedUntil: Date?

    package init(_ info: MatesStateInfo, profile: MatesProfile, me: UUID) throws {
        self.init(info, profile: try profile.snapshot, me: me)
    }

    package init(_ info: MatesStateInfo, profile: MatesProfileSnapshot, me: UUID) {
        state = info.state
        matchId = info.match?.id
        with = info.partner.map(MatePersonResponse.init)
        since = info.state == .matched ? info.match?.createdAt : (info.state == .searching ? profile.queuedAt : nil)
        reviewed = info.reviewed
        lastMatch = info.lastMatch.map { last in
            LastMatchResponse(matchId: last.match.id ?? UUID(), with: last.partner.map(MatePersonResponse.init),
                              endedAt: last.match.endedAt ?? Date(), reason: last.match.endReason ?? "finished",
                              endedByMe: last.match.endedBy == me, reviewed: last.reviewed)
        }
        searchBlockedUntil = info.searchBlockedUntil
    }
}

struct RequestBody: Content {
    package let to: UUID?
}

struct MatesRequestResponse: Content {
    /// Null when the other had asked first: then this request was the acceptance.
    @NullEncoded package var id: UUID?
    package let to: UUID
    package let matched: Bool
    package let state: MatesStateResponse
}

struct MatesReviewBody: Content {
    package let matchId: UUID?
    package let reputation: [Int]?
    package let comment: String?
}

struct MatesReviewResponse: Content {
    package let id: UUID
    package let matchId: UUID
    let userId: UUID
    package let reputation: [Int]
    package let comment: String
    package let createdAt: Date
}

struct MatesReportBody: Content {
    let userId: UUID?
    package let categories: [String]?
    package let comment: String?
}

struct MatesReportResponse: Content {
    package let id: UUID
    let userId: UUID
    package let categories: [String]
    package let createdAt: Date
}

struct MessageBody: Content {
    package let text: String?
    /// The client's own id for the line, echoed on the live socket.
    let clientId: String?
}

struct ChatPage: Content {
    package let items: [ChatMessage]
    @NullEncoded package var nextCursor: String?
    package let unreadCount: Int
    /// The other side's read marker: messages up to this time were read.
    @NullEncoded package var partnerReadAt: Date?
    /// False once the match ended: the history stays, sending is closed.
    package let open: Bool
}

struct ChatReadBody: Content {
    let messageId: UUID?
}

struct ChatReadResponse: Content {
    @NullEncoded package var readAt: Date?
    package let unreadCount: Int
}

struct MenuGameStarted: Content {
    package let pin: String
    /// Where the group's page is (the menu game's own).
    package let link: String
    /// The host's device token when the caller sent none: the menu game knows its host by it.
    @NullEncoded package var hostToken: String?
    package let message: ChatMessage
}

struct ShopItemResponse: Content {
    package let id: String
    package let kind: MatesItemKind
    package let index: Int
    package let name: String
    package let price: Int
    @NullEncoded package var productId: String?
    let owned: Bool
}

struct ShopItemsResponse: Content {
    package let items: [ShopItemResponse]
}

struct CollectionResponse: Content {
    package let avatars: [Int]
    package let backgrounds: [Int]
    package let avatar: Int
    package let background: Int

    package init(_ collection: MatesCollection) {
        avatars = collection.avatars
        backgrounds = collection.backgrounds
        avatar = collection.avatar
        background = collection.background
    }
}

struct PurchaseBody: Content {
    /// StoreKit 2's `jwsRepresentation` of the transaction.
    package let signedTransaction: String?
}

struct PurchaseResponse: Content {
    package let item: ShopItemResponse
    package let collection: CollectionResponse
}

struct AppearanceBody: Content {
    package let avatar: Int?
    package let background: Int?
}
