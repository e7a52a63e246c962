import Accounts
import Fluent
import Mates
import MatesTesting
import Platform
@testable import SesacStudyApp
import SocketIO
import WhatWeEatTesting
import XCTVapor

/// The queue's and the match's outcomes that the replay checklist (`MatesCompatTests`) leaves out
/// (`../shared/contracts/sesac-study-api.md` §3.6–§3.15, §4.1), and web and app users meeting in the
/// same queue and chat: web users through `/api/v1/mates`, app users through `/v1`. And the
/// accounts they share: a phone number the web verified joins that account; withdrawing deletes
/// only an account the app made.
final class MatesCompatMixedUseTests: XCTestCase {
    // MARK: Requests and accepts

    func testRequestAndAcceptOutcomes() async throws {
        try await withSesacApp { app, firebase in
            let a = try SesacAppClient(app: app, firebase: firebase), b = try SesacAppClient(app: app, firebase: firebase)
            let c = try SesacAppClient(app: app, firebase: firebase), idle = try SesacAppClient(app: app, firebase: firebase)
            for (client, nick) in [(a, "에이"), (b, "비이"), (c, "씨이"), (idle, "쉬는중")] { try await client.signUp(nick: nick) }

            let stopIdle = try await idle.call(.DELETE, "/v1/queue")
            XCTAssertEqual(stopIdle.status, .ok, "not searching: stopping is still fine: \(stopIdle.text)")
            let stopIdleDummy = try await idle.call(.DELETE, "/v1/queue?=")
            XCTAssertEqual(stopIdleDummy.status, .ok)
            let idleState = try await idle.queueState()
            XCTAssertEqual(idleState.status.code, 201)

            try await a.search()
            let notSearching = try await a.call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(b.uid)")
            XCTAssertEqual(notSearching.status.code, 202, "B is not searching: \(notSearching.text)")
            let unknown = try await a.call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(SesacAppClient.newUID())")
            XCTAssertEqual(unknown.status.code, 202, "nobody has that uid: \(unknown.text)")
            let noUID = try await a.call(.POST, "/v1/queue/studyrequest", form: "")
            XCTAssertEqual(noUID.status.code, 501, noUID.text)
            XCTAssertEqual(noUID.errorCode, "missing_field")

            try await b.search(at: MatesPlaces.east(300))
            let unasked = try await a.call(.POST, "/v1/queue/studyaccept", form: "otheruid=\(b.uid)")
            XCTAssertEqual(unasked.status.code, 202, "B never asked A: \(unasked.text)")
            let stillWaiting = try await a.queueState()
            XCTAssertEqual(stillWaiting.object["matched"] as? Int, 0)

            // C asks A; then B accepts A's request first: A can no longer take C's.
            try await c.search(at: MatesPlaces.east(600))
            let cAsks = try await c.call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(a.uid)")
            XCTAssertEqual(cAsks.status, .ok, cAsks.text)
            let aAsks = try await a.call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(b.uid)")
            XCTAssertEqual(aAsks.status, .ok, aAsks.text)
            let bAccepts = try await b.call(.POST, "/v1/queue/studyaccept", form: "otheruid=\(a.uid)")
            XCTAssertEqual(bAccepts.status, .ok, bAccepts.text)
            let tooLate = try await a.call(.POST, "/v1/queue/studyaccept", form: "otheruid=\(c.uid)")
            XCTAssertEqual(tooLate.status.code, 203, "I am matched already: \(tooLate.text)")
            let askMatched = try await c.call(.POST, "/v1/queue/studyaccept", form: "otheruid=\(a.uid)")
            XCTAssertEqual(askMatched.status.code, 201, "A is matched with someone else: \(askMatched.text)")

            // Searching again while matched: 200, and nothing changes.
            let again = try await a.call(.POST, "/v1/queue", form: "lat=\(MatesPlaces.cityHall.lat)&long=\(MatesPlaces.cityHall.lon)&studylist=x")
            XCTAssertEqual(again.status, .ok, again.text)
            let matched = try await a.queueState()
            XCTAssertEqual(matched.object["matched"] as? Int, 1)
            XCTAssertEqual(matched.object["matchedUid"] as? String, b.uid)
            let cannotStop = try await a.call(.DELETE, "/v1/queue")
            XCTAssertEqual(cannotStop.status.code, 201)
        }
    }

    // MARK: Dodges, reports

    /// 203, 204 and 205 for 1, 2 and 3 minutes, as every app tells its user, with `Retry-After`;
    /// a fourth dodge in a day is 205 and three minutes again, never an hour.
    func testThePenaltyLadderOfThreeDodges() async throws {
        try await withSesacApp { app, firebase in
            let dodger = try SesacAppClient(app: app, firebase: firebase)
            try await dodger.signUp(nick: "도망자")
            let account = try await accountID(dodger)
            for (number, status) in [203, 204, 205, 205].enumerated() {
                let partner = try SesacAppClient(app: app, firebase: firebase)
                try await partner.signUp(nick: "상대\(number)")
                try await matchApps(dodger, partner)
                let dodged = try await dodger.call(.POST, "/v1/queue/dodge", form: "otheruid=\(partner.uid)")
                XCTAssertEqual(dodged.status, .ok, dodged.text)
                let left = try await partner.queueState()
                XCTAssertEqual(left.object["dodged"] as? Int, 1, "dodge \(number + 1)")
                let blocked = try await dodger.call(.POST, "/v1/queue", form: "lat=37.5&long=127")
                XCTAssertEqual(Int(blocked.status.code), status, "dodge \(number + 1): \(blocked.text)")
                XCTAssertFalse(blocked.text.isEmpty, "the reason as text")
                let minutes = min(number + 1, 3)
                let wait = try XCTUnwrap(Int(blocked.headers.first(name: "Retry-After") ?? ""), "dodge \(number + 1)")
                XCTAssertTrue(minutes * 60 - 5...minutes * 60 ~= wait, "dodge \(number + 1): \(wait) s")
                XCTAssertTrue(blocked.text.contains("\(minutes)"), blocked.text)
                let normal = try await dodger.queueState()
                XCTAssertEqual(normal.status.code, 201, "the one who dodged is in the normal state")
                let user = try await userObject(dodger)
                XCTAssertEqual(user["dodgepenalty"] as? Int, min(number + 1, 3))
                XCTAssertEqual(user["dodgeNum"] as? Int, number + 1)
                // The partner left behind is not punished.
                try await partner.search(at: MatesPlaces.east(900))
                try await MatesStore(database: app.db, application: app).blockSearching(account, until: nil)
            }
        }
    }

    func testThreeReportsFromWebUsersSuspendAnAppUser() async throws {
        try await withSesacApp { app, firebase in
            let troll = try SesacAppClient(app: app, firebase: firebase)
            try await troll.signUp(nick: "트롤")
            let trollAccount = try await accountID(troll)
            struct ReportBody: Encodable { let userId: UUID; let categories: [String]; let comment: String }
            try await troll.search()
            for number in 0..<3 {
                let reporter = try await app.mate("신고자\(number)")
                try await app.search(reporter, at: MatesPlaces.east(300))
                let asked = try await app.send(.POST, "\(Application.mates)/requests", json: ["to": trollAccount], token: reporter.token)
                XCTAssertEqual(asked.status, .created, asked.text)
                let accepted = try await troll.call(.POST, "/v1/queue/studyaccept", form: "otheruid=\(reporter.id.uuidString.lowercased())")
                XCTAssertEqual(accepted.status, .ok, accepted.text)
                let finished = try await app.send(.POST, "\(Application.mates)/match/finish", token: reporter.token)
                XCTAssertEqual(finished.status, .ok, finished.text)
                let reported = try await app.send(.POST, "\(Application.mates)/reports",
                                                  json: ReportBody(userId: trollAccount, categories: ["rude"], comment: "앱에서 온 사람"), token: reporter.token)
                XCTAssertEqual(reported.status, .created, reported.text)
                let queue = try await troll.call(.POST, "/v1/queue", form: "lat=\(MatesPlaces.cityHall.lat)&long=\(MatesPlaces.cityHall.lon)")
                XCTAssertEqual(queue.status.code, number < 2 ? 200 : 201, "report \(number + 1) of 3: \(queue.text)")
            }
            let user = try await userObject(troll)
            XCTAssertEqual(user["reportedNum"] as? Int, 3)
            let stillBlocked = try await troll.call(.POST, "/v1/queue", form: "lat=37.5&long=127")
            XCTAssertEqual(stillBlocked.status.code, 201)
        }
    }

    // MARK: Ending a study

    func testAfterThePartnerDodgedMyDodgeCostsNothing() async throws {
        try await withSesacApp { app, firebase in
            let a = try SesacAppClient(app: app, firebase: firebase), b = try SesacAppClient(app: app, firebase: firebase)
            try await a.signUp(nick: "남은이")
            try await b.signUp(nick: "떠난이")
            try await matchApps(a, b)
            let left = try await b.call(.POST, "/v1/queue/dodge", form: "otheruid=\(a.uid)")
            XCTAssertEqual(left.status, .ok, left.text)
            let shown = try await a.queueState()
            XCTAssertEqual(shown.status, .ok)
            XCTAssertEqual(shown.object["dodged"] as? Int, 1)
            XCTAssertEqual(shown.object["reviewed"] as? Int, 0)
            let ended = try await a.call(.POST, "/v1/queue/dodge", form: "otheruid=\(b.uid)")
            XCTAssertEqual(ended.status, .ok, "스터디 종료: \(ended.text)")
            let normal = try await a.queueState()
            XCTAssertEqual(normal.status.code, 201)
            try await a.search()
            let user = try await userObject(a)
            XCTAssertEqual(user["dodgeNum"] as? Int, 0, "no penalty")
            XCTAssertEqual(user["dodgepenalty"] as? Int, 0)
        }
    }

    func testAfterThePartnerRatedMyReviewEndsIt() async throws {
        try await withSesacApp { app, firebase in
            let a = try SesacAppClient(app: app, firebase: firebase), b = try SesacAppClient(app: app, firebase: firebase)
            try await a.signUp(nick: "리뷰받음")
            try await b.signUp(nick: "리뷰씀")
            try await matchApps(a, b)
            let rated = try await b.call(.POST, "/v1/queue/rate/\(a.uid)", form: "otheruid=\(a.uid)&reputation=1&reputation=0&reputation=0&reputation=0&reputation=0&reputation=0&comment=")
            XCTAssertEqual(rated.status, .ok, rated.text)
            let twice = try await b.call(.POST, "/v1/queue/rate/\(a.uid)", form: "otheruid=\(a.uid)&reputation=1&reputation=1&reputation=1&reputation=1&reputation=1&reputation=1")
            XCTAssertEqual(twice.status.code, 201, "reviewed already: \(twice.text)")
            let bNormal = try await b.queueState()
            XCTAssertEqual(bNormal.status.code, 201)

            let shown = try await a.queueState()
            XCTAssertEqual(shown.status, .ok)
            XCTAssertEqual(shown.object["reviewed"] as? Int, 1)
            XCTAssertEqual(shown.object["dodged"] as? Int, 0)
            XCTAssertEqual(shown.object["matched"] as? Int, 1)
            XCTAssertEqual(shown.object["matchedUid"] as? String, b.uid)
            let closed = try await a.call(.POST, "/v1/chat/\(b.uid)", form: "chat=hello")
            XCTAssertEqual(closed.status.code, 201, "the study has ended")
            let mine = try await a.call(.POST, "/v1/queue/rate/\(b.uid)", form: "otheruid=\(b.uid)&reputation=0&reputation=1&reputation=0&reputation=0&reputation=0&reputation=0&comment=%EA%B3%A0%EB%A7%88%EC%9B%8C")
            XCTAssertEqual(mine.status, .ok, mine.text)
            let normal = try await a.queueState()
            XCTAssertEqual(normal.status.code, 201)
            let mineTwice = try await a.call(.POST, "/v1/queue/rate/\(b.uid)", form: "otheruid=\(b.uid)&reputation=1")
            XCTAssertEqual(mineTwice.status.code, 201)

            let aUser = try await userObject(a), bUser = try await userObject(b)
            XCTAssertEqual(aUser["reputation"] as? [Int], [1, 0, 0, 0, 0, 0, 0, 0, 0], "B's one review")
            XCTAssertEqual(bUser["reputation"] as? [Int], [0, 1, 0, 0, 0, 0, 0, 0, 0], "A's one review")
            XCTAssertEqual(bUser["comment"] as? [String], ["고마워"])
            XCTAssertEqual(aUser["dodgeNum"] as? Int, 0)
            XCTAssertEqual(aUser["reviewedBefore"] as? [String], [b.uid])
        }
    }

    func testChatStaysWithinTheMatch() async throws {
        try await withSesacApp { app, firebase in
            let a = try SesacAppClient(app: app, firebase: firebase), b = try SesacAppClient(app: app, firebase: firebase)
            let c = try SesacAppClient(app: app, firebase: firebase)
            for (client, nick) in [(a, "에이"), (b, "비이"), (c, "엿보는이")] { try await client.signUp(nick: nick) }
            try await matchApps(a, b)
            for (from, to) in [(a, b), (b, a)] {
                let sent = try await from.call(.POST, "/v1/chat/\(to.uid)", form: "chat=%EB%B9%84%EB%B0%80")
                XCTAssertEqual(sent.status, .ok, sent.text)
            }
            for (from, to, why) in [(c, a, "C is not matched"), (a, c, "A is matched with B, not C")] {
                let refused = try await from.call(.POST, "/v1/chat/\(to.uid)", form: "chat=hi")
                XCTAssertEqual(refused.status.code, 201, "\(why): \(refused.text)")
            }
            let nobody = try await a.call(.POST, "/v1/chat/\(SesacAppClient.newUID())", form: "chat=hi")
            XCTAssertEqual(nobody.status.code, 201)
            for other in [a, b] {
                let peek = try await c.call(.GET, "/v1/chat/\(other.uid)?lastchatDate=2000-01-01T00:00:00.000Z")
                XCTAssertEqual(peek.status, .ok, peek.text)
                XCTAssertEqual((try peek.object()["payload"] as? [Any])?.count, 0, "C sees none of A and B's lines")
            }
            for date in ["2000-01-01T00:00:00.000Z", "2000-01-01T00%3A00%3A00.000Z"] {
                let own = try await a.call(.GET, "/v1/chat/\(b.uid)?lastchatDate=\(date)")
                XCTAssertEqual((try own.object()["payload"] as? [Any])?.count, 2, "a raw ':' or %3A")
            }
        }
    }

    // MARK: Accounts the web and the apps share

    func testSignUpJoinsTheWebAccountThatVerifiedThePhoneNumber() async throws {
        try await withSesacApp { app, firebase in
            let web = try await webUserVerifying(app, nickname: "웹에서먼저", phone: "010-5555-1234")
            let accounts = try await User.query(on: app.db).count()
            let client = try SesacAppClient(app: app, firebase: firebase, phone: "+821055551234")
            let joined = try await client.signUp(nick: "앱닉네임", gender: 1)
            XCTAssertEqual(try joined.object()["nick"] as? String, "웹에서먼저", "the web account keeps its nickname")
            let user = try await userObject(client)
            XCTAssertEqual(user["nick"] as? String, "웹에서먼저")
            XCTAssertEqual(user["uid"] as? String, client.uid)
            XCTAssertEqual(user["birth"] as? String, "1995-06-15T09:00:00.000Z")
            let accountsAfter = try await User.query(on: app.db).count()
            XCTAssertEqual(accountsAfter, accounts, "no second account")
            let appNamed = try await User.query(on: app.db).filter(\.$nickname == "앱닉네임").count()
            XCTAssertEqual(appNamed, 0)
            let link = try await AppUserStore(database: app.db).appUser(client.uid)
            XCTAssertEqual(link?.userID, web.id)
            XCTAssertEqual(link?.createdAccount, false)
            // What the web had not said, the app filled in.
            let profile = try await MatesStore(database: app.db, application: app).model(web.id)
            XCTAssertEqual(profile?.birthYear, 1995)
            XCTAssertEqual(profile?.gender, "male")
            let native = try await app.send(.GET, "\(Application.mates)/profile", token: web.token)
            XCTAssertEqual(native.status, .ok, native.text)
            XCTAssertEqual(try native.json(MatesJSON.Profile.self).nickname, "웹에서먼저")
        }
    }

    func testWithdrawDeletesTheAccountTheAppMade() async throws {
        try await withSesacApp { app, firebase in
            let client = try SesacAppClient(app: app, firebase: firebase)
            try await client.signUp(nick: "떠나는이")
            let account = try await accountID(client)
            let gone = try await client.call(.POST, "/v1/user/withdraw")
            XCTAssertEqual(gone.status, .ok, gone.text)
            let afterWithdraw = try await client.call(.GET, "/v1/user").status
            XCTAssertEqual(afterWithdraw, .notAcceptable)
            let user = try await User.find(account, on: app.db)
            XCTAssertNil(user, "the account the app made is deleted")
            let profile = try await MatesStore(database: app.db, application: app).model(account)
            XCTAssertNil(profile)
            let link = try await AppUserStore(database: app.db).appUser(client.uid)
            XCTAssertNil(link)
            let twice = try await client.call(.POST, "/v1/user/withdraw")
            XCTAssertEqual(twice.status, .notAcceptable, twice.text)
            // The uid may sign up afresh, and the nickname is free again.
            try await client.signUp(nick: "떠나는이")
            let fresh = try await accountID(client)
            XCTAssertNotEqual(fresh, account)
        }
    }

    func testWithdrawFromAJoinedWebAccountOnlyUnlinksTheApp() async throws {
        try await withSesacApp { app, firebase in
            let web = try await webUserVerifying(app, nickname: "웹회원", phone: "+821077778888")
            let client = try SesacAppClient(app: app, firebase: firebase, phone: "+821077778888")
            // The same nickname as the web's: joining is not a taken nickname.
            try await client.signUp(nick: "웹회원")
            let linkedAccount = try await accountID(client)
            XCTAssertEqual(linkedAccount, web.id)
            let gone = try await client.call(.POST, "/v1/user/withdraw")
            XCTAssertEqual(gone.status, .ok, gone.text)
            let afterUnlink = try await client.call(.GET, "/v1/user").status
            XCTAssertEqual(afterUnlink, .notAcceptable)
            let link = try await AppUserStore(database: app.db).appUser(client.uid)
            XCTAssertNil(link, "the link goes")
            let user = try await User.find(web.id, on: app.db)
            XCTAssertEqual(user?.nickname, "웹회원", "the web account stays")
            let profile = try await MatesStore(database: app.db, application: app).model(web.id)
            XCTAssertNotNil(profile, "and its mates profile")
            let native = try await app.send(.GET, "\(Application.mates)/profile", token: web.token)
            XCTAssertEqual(native.status, .ok, native.text)
            let withdrawAgain = try await client.call(.POST, "/v1/user/withdraw").status
            XCTAssertEqual(withdrawAgain, .notAcceptable)
        }
    }

    // MARK: Web and app users together

    func testAnAppUserAsksAndAWebUserAccepts() async throws {
        try await withSesacApp { app, firebase in
            let web = try await app.mate("웹친구", gender: "female")
            let webUID = web.id.uuidString.lowercased()
            let phone = try SesacAppClient(app: app, firebase: firebase)
            try await phone.signUp(nick: "앱친구")
            let phoneAccount = try await accountID(phone)
            try await app.search(web, topics: ["스위프트"])
            try await phone.search(at: MatesPlaces.east(300))

            let found = try await phone.call(.POST, "/v1/queue/search", form: "lat=\(MatesPlaces.cityHall.lat)&long=\(MatesPlaces.cityHall.lon)")
            let people = try XCTUnwrap(try found.object()["fromQueueDB"] as? [[String: Any]])
            let seen = try XCTUnwrap(people.first { $0["uid"] as? String == webUID }, "the web user, by account id: \(people)")
            XCTAssertEqual(seen["nick"] as? String, "웹친구")
            XCTAssertEqual(seen["gender"] as? Int, 0)
            XCTAssertEqual(seen["studylist"] as? [String], ["스위프트"])

            let asked = try await phone.call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(webUID)")
            XCTAssertEqual(asked.status, .ok, asked.text)
            let nearby = try await app.send(.GET, "\(Application.mates)/nearby?lat=\(MatesPlaces.cityHall.lat)&lon=\(MatesPlaces.cityHall.lon)",
                                            token: web.token).json(MatesJSON.Nearby.self)
            XCTAssertEqual(nearby.requestedMe.map(\.id), [phoneAccount])
            XCTAssertEqual(nearby.requestedMe.first?.nickname, "앱친구")
            let request = try await MatesStore(database: app.db, application: app).request(from: phoneAccount, to: web.id)
            let requestID = try XCTUnwrap(request?.id)
            let accepted = try await app.send(.POST, "\(Application.mates)/requests/\(requestID)/accept", token: web.token)
            XCTAssertEqual(accepted.status, .ok, accepted.text)
            let match = try XCTUnwrap(try accepted.json(MatesJSON.State.self).matchId)

            let state = try await phone.queueState()
            XCTAssertEqual(state.object["matched"] as? Int, 1)
            XCTAssertEqual(state.object["matchedUid"] as? String, webUID)
            XCTAssertEqual(state.object["matchedNick"] as? String, "웹친구")
            try await converse(app, phone: phone, web: web, match: match, phoneFirst: true)
        }
    }

    func testAWebUserAsksAndAnAppUserAccepts() async throws {
        try await withSesacApp { app, firebase in
            let web = try await app.mate("웹요청자", gender: "male")
            let webUID = web.id.uuidString.lowercased()
            let phone = try SesacAppClient(app: app, firebase: firebase)
            try await phone.signUp(nick: "앱수락자")
            let phoneAccount = try await accountID(phone)
            try await phone.search(studies: ["알고리즘", "swift"])
            try await app.search(web, at: MatesPlaces.east(300))

            let nearby = try await app.send(.GET, "\(Application.mates)/nearby?lat=\(MatesPlaces.cityHall.lat)&lon=\(MatesPlaces.cityHall.lon)",
                                            token: web.token).json(MatesJSON.Nearby.self)
            let seen = try XCTUnwrap(nearby.people.first { $0.id == phoneAccount }, "the app user, on the web")
            XCTAssertEqual(seen.nickname, "앱수락자")
            XCTAssertEqual(seen.topics, ["알고리즘", "swift"])
            let asked = try await app.send(.POST, "\(Application.mates)/requests", json: ["to": phoneAccount], token: web.token)
            XCTAssertEqual(asked.status, .created, asked.text)

            let found = try await phone.call(.POST, "/v1/queue/search", form: "lat=\(MatesPlaces.cityHall.lat)&long=\(MatesPlaces.cityHall.lon)")
            let requested = try XCTUnwrap(try found.object()["fromQueueDBRequested"] as? [[String: Any]])
            XCTAssertEqual(requested.map { $0["uid"] as? String }, [webUID])
            XCTAssertEqual(requested.first?["gender"] as? Int, 1)
            let askedBack = try await phone.call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(webUID)")
            XCTAssertEqual(askedBack.status.code, 201, "the web user asked first: \(askedBack.text)")
            let accepted = try await phone.call(.POST, "/v1/queue/studyaccept", form: "otheruid=\(webUID)")
            XCTAssertEqual(accepted.status, .ok, accepted.text)

            let webState = try await app.mateState(web)
            XCTAssertEqual(webState.state, "matched")
            XCTAssertEqual(webState.with?.id, phoneAccount)
            let match = try XCTUnwrap(webState.matchId)
            try await converse(app, phone: phone, web: web, match: match, phoneFirst: false)
        }
    }
}

// MARK: - Helpers

/// Three lines, alternating between the app (`POST /v1/chat/{id}`) and the web
/// (`POST /api/v1/mates/chat/{match}/messages`), then each side's history holds all three in order.
private func converse(_ app: Application, phone: SesacAppClient, web: Member, match: UUID, phoneFirst: Bool,
                      file: StaticString = #filePath, line: UInt = #line) async throws {
    let webUID = web.id.uuidString.lowercased()
    let phoneAccount = try await accountID(phone)
    let lines = ["첫 줄 from \(phoneFirst ? "app" : "web")", "둘째 줄", "셋째 줄 😀"]
    var senders: [Bool] = []
    for (index, text) in lines.enumerated() {
        let byPhone = (index % 2 == 0) == phoneFirst
        senders.append(byPhone)
        if byPhone {
            let sent = try await phone.call(.POST, "/v1/chat/\(webUID)", form: SesacAppClient.encode([("chat", text)]))
            XCTAssertEqual(sent.status, .ok, sent.text, file: file, line: line)
            let chat = try sent.object()
            XCTAssertEqual(chat["to"] as? String, webUID, file: file, line: line)
            XCTAssertEqual(chat["from"] as? String, phone.uid, file: file, line: line)
            XCTAssertEqual(chat["chat"] as? String, text, file: file, line: line)
        } else {
            let sent = try await app.send(.POST, "\(Application.mates)/chat/\(match)/messages", json: ["text": text], token: web.token)
            XCTAssertEqual(sent.status, .created, sent.text, file: file, line: line)
        }
    }
    let history = try await phone.call(.GET, "/v1/chat/\(webUID)?lastchatDate=2000-01-01T00:00:00.000Z")
    XCTAssertEqual(history.status, .ok, history.text, file: file, line: line)
    let payload = try XCTUnwrap(try history.object()["payload"] as? [[String: Any]], file: file, line: line)
    XCTAssertEqual(payload.map { $0["chat"] as? String }, lines, "the app sees every line, oldest first", file: file, line: line)
    XCTAssertEqual(payload.map { $0["from"] as? String }, senders.map { $0 ? phone.uid : webUID }, file: file, line: line)
    XCTAssertEqual(payload.map { $0["to"] as? String }, senders.map { $0 ? webUID : phone.uid }, file: file, line: line)
    let native = try await app.send(.GET, "\(Application.mates)/chat/\(match)/messages", token: web.token)
    XCTAssertEqual(native.status, .ok, native.text, file: file, line: line)
    let items = try native.json(MatesJSON.Chat.self).items.reversed()
    XCTAssertEqual(items.map(\.text), lines, "the web sees every line (newest first)", file: file, line: line)
    XCTAssertEqual(items.map(\.senderId), senders.map { $0 ? phoneAccount : web.id }, file: file, line: line)
}

/// A web account that confirmed `phone` through the native verification endpoints (and said
/// nothing else about itself).
private func webUserVerifying(_ app: Application, nickname: String, phone: String) async throws -> Member {
    let inbox = app.codeInbox
    let member = try await app.member(nickname)
    try await app.deleteRows(of: MatesStore.Table.codes)
    let sent = try await app.send(.POST, "\(Application.mates)/verification", json: ["channel": "phone", "destination": phone], token: member.token)
    XCTAssertEqual(sent.status, .accepted, sent.text)
    let normalized = try MatesRules.normalizedDestination(phone, channel: .phone)
    let code = try XCTUnwrap(inbox.last(to: normalized) ?? inbox.last(to: phone))
    let confirmed = try await app.send(.POST, "\(Application.mates)/verification/confirm", json: ["destination": phone, "code": code], token: member.token)
    XCTAssertEqual(confirmed.status, .ok, confirmed.text)
    return member
}
