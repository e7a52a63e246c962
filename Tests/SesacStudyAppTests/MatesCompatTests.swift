import Accounts
import Fluent
import Mates
import MatesTesting
import Platform
@testable import SesacStudyApp
import SocketIO
import WhatWeEatTesting
import XCTVapor

/// The contract's replay checklist (`../shared/contracts/sesac-study-api.md` §8), step by step, with
/// the exact form encodings the apps send.
final class MatesCompatTests: XCTestCase {
    func testSignUpLogInAndTheUserObject() async throws {
        try await withSesacApp { app, firebase in
            let client = try SesacAppClient(app: app, firebase: firebase)
            let unknown = try await client.call(.GET, "/v1/user?=")
            XCTAssertEqual(unknown.status, .notAcceptable, unknown.text)

            try await client.signUp(nick: "고래밥")
            let again = try await client.call(.POST, "/v1/user", form: SesacAppClient.encode([("nick", "고래밥2"), ("birth", "1995-06-15T09:00:00.000Z"), ("gender", "1")]))
            XCTAssertEqual(again.status.code, 201, again.text)

            let user = try await client.call(.GET, "/v1/user")
            XCTAssertEqual(user.status, .ok, user.text)
            let object = try user.object()
            let keys: Set<String> = ["_id", "__v", "uid", "phoneNumber", "email", "FCMtoken", "nick", "birth", "gender", "study", "comment", "reputation",
                                     "sesac", "sesacCollection", "background", "backgroundCollection", "purchaseToken", "transactionId", "reviewedBefore",
                                     "reportedNum", "reportedUser", "dodgepenalty", "dodgeNum", "ageMin", "ageMax", "searchable", "createdAt"]
            XCTAssertEqual(Set(object.keys), keys)
            XCTAssertEqual(object["uid"] as? String, client.uid)
            XCTAssertEqual(object["nick"] as? String, "고래밥")
            XCTAssertEqual(object["birth"] as? String, "1995-06-15T09:00:00.000Z", "kept as sent, not corrected")
            XCTAssertEqual(object["gender"] as? Int, 1)
            XCTAssertEqual(object["sesacCollection"] as? [Int], [0])
            XCTAssertEqual(object["backgroundCollection"] as? [Int], [0])
            XCTAssertEqual(object["reputation"] as? [Int], [0, 0, 0, 0, 0, 0, 0, 0, 0])
            XCTAssertEqual((object["_id"] as? String)?.count, 24)
            XCTAssertEqual(object["__v"] as? Int, 0)
            XCTAssertEqual(object["FCMtoken"] as? String, "fcm-\(client.uid)")
            let created = try XCTUnwrap(object["createdAt"] as? String)
            XCTAssertNotNil(created.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression), created)
            for key in ["comment", "purchaseToken", "transactionId", "reviewedBefore", "reportedUser"] {
                XCTAssertNotNil(object[key] as? [Any], "\(key) is an array, never null")
            }

            // The phone number from the token verified the account for mates.
            let found = try await AppUserStore(database: app.db).appUser(client.uid)
            let account = try XCTUnwrap(found)
            let foundProfile = try await MatesStore(database: app.db, application: app).model(account.userID)
            let profile = try XCTUnwrap(foundProfile)
            XCTAssertEqual(profile.verifiedChannel, "phone")
            XCTAssertEqual(profile.birthYear, 1995)
            XCTAssertEqual(profile.gender, "male")
        }
    }

    func testQueueRequestAcceptAndTheStates() async throws {
        try await withSesacApp { app, firebase in
            let a = try SesacAppClient(app: app, firebase: firebase), b = try SesacAppClient(app: app, firebase: firebase)
            let c = try SesacAppClient(app: app, firebase: firebase)
            try await a.signUp(nick: "에이")
            try await b.signUp(nick: "비이", gender: 0)
            try await c.signUp(nick: "씨이")
            let normal = try await a.queueState()
            XCTAssertEqual(normal.status.code, 201, "not searching: the normal state")

            try await a.search(studies: ["a", "b"])
            let noKey = try await b.call(.POST, "/v1/queue", form: "long=\(MatesPlaces.east(300).lon)&lat=\(MatesPlaces.east(300).lat)")
            XCTAssertEqual(noKey.status, .ok, noKey.text)
            try await c.search(at: MatesPlaces.east(600))
            let waiting = try await a.queueState()
            XCTAssertEqual(waiting.status, .ok)
            XCTAssertEqual(waiting.object["matched"] as? Int, 0)
            XCTAssertEqual(waiting.object["dodged"] as? Int, 0)
            XCTAssertEqual(waiting.object["reviewed"] as? Int, 0)
            XCTAssertNil(waiting.object["matchedUid"], "omitted while waiting")

            let asked = try await a.call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(b.uid)")
            XCTAssertEqual(asked.status, .ok, asked.text)
            XCTAssertFalse(asked.text.isEmpty, "a short body on a bare 200")
            let found = try await b.call(.POST, "/v1/queue/search", form: "lat=\(MatesPlaces.cityHall.lat)&long=\(MatesPlaces.cityHall.lon)")
            XCTAssertEqual(found.status, .ok, found.text)
            let search = try found.object()
            let requested = try XCTUnwrap(search["fromQueueDBRequested"] as? [[String: Any]])
            XCTAssertEqual(requested.map { $0["uid"] as? String }, [a.uid])
            let near = try XCTUnwrap(search["fromQueueDB"] as? [[String: Any]])
            XCTAssertEqual(Set(near.compactMap { $0["uid"] as? String }), [a.uid, c.uid])
            let person = try XCTUnwrap(near.first { $0["uid"] as? String == a.uid })
            XCTAssertEqual(Set(person.keys), ["uid", "nick", "lat", "long", "reputation", "studylist", "reviews", "gender", "type", "sesac", "background"])
            XCTAssertEqual(person["studylist"] as? [String], ["a", "b"])
            // The public position (the 200 m square, moved within it), never the point itself.
            let shown = Coordinate(unchecked: try XCTUnwrap(person["lat"] as? Double), try XCTUnwrap(person["long"] as? Double))
            XCTAssertLessThan(shown.distanceMeters(to: Coordinate(unchecked: MatesPlaces.cityHall.lat, MatesPlaces.cityHall.lon)), 260)
            XCTAssertNotEqual(person["lat"] as? Double, MatesPlaces.cityHall.lat)
            XCTAssertNotNil(search["fromRecommend"] as? [String])

            // Requests that meet halfway meet: B asking A, who asked B, matches them at once (201,
            // "상대방도 스터디를 요청하여 매칭되었습니다"); an app that then accepts gets a harmless 200, and
            // one that asks again (HC, which reads the answer as an accept's) gets 200: accepted.
            let askedBack = try await b.call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(a.uid)")
            XCTAssertEqual(askedBack.status.code, 201, "A asked first: \(askedBack.text)")
            XCTAssertTrue(askedBack.text.contains("매칭"), askedBack.text)
            let matchedAtOnce = try await b.queueState()
            XCTAssertEqual(matchedAtOnce.object["matched"] as? Int, 1, "matched by the request itself")
            let accepted = try await b.call(.POST, "/v1/queue/studyaccept", form: "otheruid=\(a.uid)")
            XCTAssertEqual(accepted.status, .ok, "accepting our own match: \(accepted.text)")
            for asker in [a, b] {
                let other = asker.uid == a.uid ? b : a
                let askedAgain = try await asker.call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(other.uid)")
                XCTAssertEqual(askedAgain.status.code, 200, "already matched together: \(askedAgain.text)")
            }
            let oneMatch = try await app.rowCount(MatesStore.Table.matches)
            XCTAssertEqual(oneMatch, 1, "one match, however the apps went about it")
            for (me, partner, nick) in [(a, b, "비이"), (b, a, "에이")] {
                let state = try await me.queueState()
                XCTAssertEqual(state.object["matched"] as? Int, 1)
                XCTAssertEqual(state.object["matchedUid"] as? String, partner.uid)
                XCTAssertEqual(state.object["matchedNick"] as? String, nick)
            }
            let late = try await c.call(.POST, "/v1/queue/studyaccept", form: "otheruid=\(a.uid)")
            XCTAssertEqual(late.status.code, 201, "A is taken")
            let cannotStop = try await a.call(.DELETE, "/v1/queue?=")
            XCTAssertEqual(cannotStop.status.code, 201, "matched: cannot stop searching")
        }
    }

    func testChatDodgePenaltyAndReview() async throws {
        try await withSesacApp { app, firebase in
            let a = try SesacAppClient(app: app, firebase: firebase), b = try SesacAppClient(app: app, firebase: firebase)
            try await a.signUp(nick: "에이")
            try await b.signUp(nick: "비이")
            try await a.search()
            try await b.search(at: MatesPlaces.east(300))
            _ = try await a.call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(b.uid)")
            _ = try await b.call(.POST, "/v1/queue/studyaccept", form: "otheruid=\(a.uid)")

            let sent = try await a.call(.POST, "/v1/chat/\(b.uid)", form: "chat=%EC%95%88%EB%85%95+hi")
            XCTAssertEqual(sent.status, .ok, sent.text)
            let chat = try sent.object()
            XCTAssertEqual(Set(chat.keys), ["_id", "to", "from", "chat", "createdAt"])
            XCTAssertEqual(chat["chat"] as? String, "안녕 hi")
            XCTAssertEqual(chat["from"] as? String, a.uid)
            XCTAssertEqual(chat["to"] as? String, b.uid)
            let reply = try await b.call(.POST, "/v1/chat/\(a.uid)", form: "chat=%EB%B0%98%EA%B0%80%EC%9B%8C")
            XCTAssertEqual(reply.status, .ok)

            let history = try await b.call(.GET, "/v1/chat/\(a.uid)?lastchatDate=2000-01-01T00:00:00.000Z")
            let payload = try XCTUnwrap(try history.object()["payload"] as? [[String: Any]])
            XCTAssertEqual(payload.map { $0["chat"] as? String }, ["안녕 hi", "반가워"], "oldest first")
            let first = try XCTUnwrap(payload.first?["createdAt"] as? String)
            let newer = try await b.call(.GET, "/v1/chat/\(a.uid)?lastchatDate=\(first)")
            XCTAssertEqual(try XCTUnwrap(try newer.object()["payload"] as? [[String: Any]]).map { $0["chat"] as? String }, ["반가워"],
                           "strictly after the line the app has (a raw ':' in the query)")

            let wrong = try await a.call(.POST, "/v1/queue/dodge", form: "otheruid=\(SesacAppClient.newUID())")
            XCTAssertEqual(wrong.status.code, 201, "not my partner")
            let dodged = try await a.call(.POST, "/v1/queue/dodge", form: "otheruid=\(b.uid)")
            XCTAssertEqual(dodged.status, .ok, dodged.text)
            let partnerView = try await b.queueState()
            XCTAssertEqual(partnerView.status, .ok)
            XCTAssertEqual(partnerView.object["dodged"] as? Int, 1)
            XCTAssertEqual(partnerView.object["matchedUid"] as? String, a.uid)
            let penalty = try await a.call(.POST, "/v1/queue", form: "lat=37.5&long=127")
            XCTAssertEqual(penalty.status.code, 203, "the first dodge of the day: a minute")
            let closed = try await b.call(.POST, "/v1/chat/\(a.uid)", form: "chat=hello")
            XCTAssertEqual(closed.status.code, 201, "the study has ended")

            // B ends it with a review; JH's one-string encoding of the picks.
            let rated = try await b.call(.POST, "/v1/queue/rate/\(a.uid)",
                                         form: "otheruid=\(a.uid)&reputation=%5B1%2C%200%2C%200%2C%201%2C%200%2C%200%2C%200%2C%200%2C%200%5D&comment=%EC%A2%8B%EC%95%84%EC%9A%94")
            XCTAssertEqual(rated.status, .ok, rated.text)
            let normal = try await b.queueState()
            XCTAssertEqual(normal.status.code, 201, "reviewed: back to normal")
            let rater = try await a.call(.GET, "/v1/user")
            let object = try rater.object()
            XCTAssertEqual(object["reputation"] as? [Int], [1, 0, 0, 1, 0, 0, 0, 0, 0])
            XCTAssertEqual(object["comment"] as? [String], ["좋아요"])
            XCTAssertEqual(object["dodgeNum"] as? Int, 1)
        }
    }

    func testShopAndTokens() async throws {
        try await withSesacApp { app, firebase in
            let a = try SesacAppClient(app: app, firebase: firebase)
            try await a.signUp(nick: "상점")
            let notOwned = try await a.call(.POST, "/v1/user/shop/item", form: "sesac=1&background=0")
            XCTAssertEqual(notOwned.status.code, 201)
            let owned = try await a.call(.POST, "/v1/user/shop/item", form: "sesac=0&background=0")
            XCTAssertEqual(owned.status, .ok)

            var bad = a
            for token in ["", "not-a-token", try firebase.tokenSignedByAnotherKey(uid: a.uid), firebase.unsignedToken(uid: a.uid),
                          try firebase.token(uid: a.uid, issuedAt: Date().addingTimeInterval(-7200), expiresIn: 3600)] {
                bad.token = token
                let refused = try await bad.call(.GET, "/v1/user")
                XCTAssertEqual(refused.status, .unauthorized, "\(token.prefix(20))")
            }
        }
    }
}
