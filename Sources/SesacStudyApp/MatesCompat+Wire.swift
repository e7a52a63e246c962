import Accounts
import Mates
import Notifications
import Platform
import SocketIO
import Vapor

// The 새싹 스터디 apps' JSON, field for field (`../shared/contracts/sesac-study-api.md` §2). Every key
// is always present: the apps decode with non-optional fields. Arrays are never null; dates are
// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` strings (`JavaScriptDate`).

/// The user object of `GET /v1/user` and `GET /v1/user/shop/myinfo`.
struct SesacUser: Content {
    let _id: String
    let __v: Int
    let uid: String
    let phoneNumber: String
    let email: String
    let FCMtoken: String
    let nick: String
    let birth: String
    let gender: Int
    let study: String
    let comment: [String]
    let reputation: [Int]
    let sesac: Int
    let sesacCollection: [Int]
    let background: Int
    let backgroundCollection: [Int]
    let purchaseToken: [String]
    let transactionId: [String]
    let reviewedBefore: [String]
    let reportedNum: Int
    let reportedUser: [String]
    let dodgepenalty: Int
    let dodgeNum: Int
    let ageMin: Int
    let ageMax: Int
    let searchable: Int
    let createdAt: String

    /// `now` stands in for a sign-up time not yet written.
    init(_ record: AppUserRecord, now: Date) {
        let profile = record.profile
        _id = ObjectID.of(record.appUser.userID)
        __v = 0
        uid = record.appUser.uid
        phoneNumber = record.appUser.phoneNumber
        email = record.appUser.email
        FCMtoken = record.appUser.fcmToken
        nick = record.account.nickname
        birth = JavaScriptDate.string(record.appUser.birth)
        gender = SesacWire.genderNumber(MatesGender(rawValue: profile.gender) ?? .unspecified)
        study = record.appUser.study
        comment = record.comments
        reputation = SesacWire.reputation(profile.reputation)
        sesac = profile.avatar
        sesacCollection = record.collection.avatars
        background = profile.background
        backgroundCollection = record.collection.backgrounds
        purchaseToken = []
        transactionId = record.transactionIDs
        reviewedBefore = record.reviewedUIDs
        reportedNum = record.reportedCount
        reportedUser = record.reportedUIDs
        dodgepenalty = record.dodgesToday
        dodgeNum = record.dodges
        ageMin = profile.ageMin
        ageMax = profile.ageMax
        searchable = record.appUser.searchable ? 1 : 0
        createdAt = JavaScriptDate.string(record.appUser.createdAt ?? now)
    }
}

/// `POST /v1/queue/search`.
struct SesacSearch: Content {
    package struct Person: Content {
        package let uid: String
        package let nick: String
        package let lat: Double
        package let long: Double
        package let reputation: [Int]
        package let studylist: [String]
        package let reviews: [String]
        package let gender: Int
        /// Read by no app; 0 as the contract suggests.
        package let type: Int
        package let sesac: Int
        package let background: Int

        package init(uid: String, nick: String, lat: Double, long: Double, reputation: [Int], studylist: [String],
                     reviews: [String], gender: Int, type: Int, sesac: Int, background: Int) {
            self.uid = uid
            self.nick = nick
            self.lat = lat
            self.long = long
            self.reputation = reputation
            self.studylist = studylist
            self.reviews = reviews
            self.gender = gender
            self.type = type
            self.sesac = sesac
            self.background = background
        }
    }

    let fromQueueDB: [Person]
    let fromQueueDBRequested: [Person]
    let fromRecommend: [String]

    init(fromQueueDB: [Person], fromQueueDBRequested: [Person], fromRecommend: [String]) {
        self.fromQueueDB = fromQueueDB
        self.fromQueueDBRequested = fromQueueDBRequested
        self.fromRecommend = fromRecommend
    }
}

/// `SesacSearch` written by hand (`JSONBytes`): the home map of every app calls it, and Foundation's
/// encoder was most of its cost. Keys in `AppJSON`'s sorted order; `JSONBytesTests` compares the two.
enum SesacSearchJSON {
    static func write(_ search: SesacSearch) -> JSONBytes {
        var json = JSONBytes(capacity: 320 * (search.fromQueueDB.count + search.fromQueueDBRequested.count) + 256)
        json.raw(#"{"fromQueueDB":"#)
        people(&json, search.fromQueueDB)
        json.raw(#","fromQueueDBRequested":"#)
        people(&json, search.fromQueueDBRequested)
        json.raw(#","fromRecommend":"#)
        json.strings(search.fromRecommend)
        json.raw("}")
        return json
    }

    /// A list of people, looped here (`JSONBytes.list` is generic across modules: unspecialized).
    static func people(_ json: inout JSONBytes, _ people: [SesacSearch.Person]) {
        json.raw("[")
        for (position, one) in people.enumerated() {
            if position > 0 { json.raw(",") }
            person(&json, one)
        }
        json.raw("]")
    }

    static func person(_ json: inout JSONBytes, _ person: SesacSearch.Person) {
        json.raw(#"{"background":"#)
        json.int(person.background)
        json.raw(#","gender":"#)
        json.int(person.gender)
        json.raw(#","lat":"#)
        json.double(person.lat)
        json.raw(#","long":"#)
        json.double(person.long)
        json.raw(#","nick":"#)
        json.string(person.nick)
        json.raw(#","reputation":"#)
        json.ints(person.reputation)
        json.raw(#","reviews":"#)
        json.strings(person.reviews)
        json.raw(#","sesac":"#)
        json.int(person.sesac)
        json.raw(#","studylist":"#)
        json.strings(person.studylist)
        json.raw(#","type":"#)
        json.int(person.type)
        json.raw(#","uid":"#)
        json.string(person.uid)
        json.raw("}")
    }
}

/// `GET /v1/queue/myQueueState` (200). The partner's nick and uid only when matched.
struct SesacQueueState: Content {
    let dodged: Int
    let matched: Int
    let reviewed: Int
    let matchedNick: String?
    let matchedUid: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(dodged, forKey: .dodged)
        try container.encode(matched, forKey: .matched)
        try container.encode(reviewed, forKey: .reviewed)
        try container.encodeIfPresent(matchedNick, forKey: .matchedNick)
        try container.encodeIfPresent(matchedUid, forKey: .matchedUid)
    }
}

/// A chat line: `POST /v1/chat/{uid}`'s answer, `GET`'s `payload` items, the socket's `chat` event.
struct SesacChat: Content, Equatable {
    let _id: String
    let to: String
    let from: String
    let chat: String
    let createdAt: String

    /// A line of ours as the apps show it: text as written; the menu game line as its PIN.
    init(id: UUID, kind: String, text: String, pin: String?, createdAt: Date, from: String, to: String) {
        _id = ObjectID.of(id)
        self.to = to
        self.from = from
        chat = kind == "menu_game" ? "🍽 우리뭐먹지 PIN \(pin ?? text)" : text
        self.createdAt = JavaScriptDate.string(createdAt)
    }
}

struct SesacChatList: Content {
    let payload: [SesacChat]
}
