import Accounts
import Fluent
import Mates
import MatesTesting
import Platform
@testable import SesacStudyApp
import SocketIO
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The many ways the 새싹 스터디 apps write the same request (`../shared/contracts/sesac-study-api.md`
/// §1, §3, §4.2), and the decisions of docs/MATES.md "Pointing a 새싹 스터디 app at this server":
/// 501 for bad parameters (with the JSON error in the reader's language), 202 for a nickname we
/// cannot give, 401 for any token not of an allowed project, receipts granted only with the test
/// verifier. `MatesCompatTests` replays the checklist; `MatesCompatMixedUseTests` covers the
/// queue's outcomes, the accounts the web and the apps share, and their users together.
final class MatesCompatVariantsTests: XCTestCase {
    // MARK: Form encodings

    func testStudyListsInEveryEncodingShowTheSameToOthers() async throws {
        try await withSesacApp { app, firebase in
            let viewer = try SesacAppClient(app: app, firebase: firebase)
            try await viewer.signUp(nick: "보는사람")
            let brackets = try SesacAppClient(app: app, firebase: firebase), lone = try SesacAppClient(app: app, firebase: firebase)
            let absent = try SesacAppClient(app: app, firebase: firebase), spaced = try SesacAppClient(app: app, firebase: firebase)
            // Each signs up and searches with a Content-Type the apps send: explicit, Alamofire's
            // default with a charset, none at all.
            let plain = "application/x-www-form-urlencoded", charset = "application/x-www-form-urlencoded; charset=utf-8"
            let signUps: [(SesacAppClient, String, String?)] = [(brackets, "괄호", plain), (lone, "하나만", charset), (absent, "없음", nil)]
            for (client, nick, contentType) in signUps {
                let signedUp = try await client.call(.POST, "/v1/user", form: signUpForm(client, nick: nick), contentType: contentType)
                XCTAssertEqual(signedUp.status, .ok, "\(contentType ?? "no Content-Type"): \(signedUp.text)")
            }
            // Spaces as `+` in the nickname, Korean as UTF-8 escapes.
            let nickPlus = try await spaced.call(.POST, "/v1/user", form: "phoneNumber=%2B821099998888&FCMtoken=f&nick=%EA%B3%A0%EB%9E%98+%EB%B0%A5"
                                                 + "&birth=1995-06-15T09%3A00%3A00.000Z&email=a%40b.com&gender=1")
            XCTAssertEqual(nickPlus.status, .ok, nickPlus.text)

            let place = { (meters: Double) in "lat=\(MatesPlaces.east(meters).lat)&long=\(MatesPlaces.east(meters).lon)" }
            let searches: [(SesacAppClient, String, String?)] = [
                (brackets, "studylist%5B%5D=a&studylist[]=b&" + place(100), plain),
                (lone, "studylist=anything&" + place(200), charset),
                (absent, place(300), nil),
                (spaced, "studylist=swift+ui&studylist=%EC%95%8C%EA%B3%A0%EB%A6%AC%EC%A6%98&studylist=data%20base&" + place(400), plain),
            ]
            for (client, form, contentType) in searches {
                let searching = try await client.call(.POST, "/v1/queue", form: form, contentType: contentType)
                XCTAssertEqual(searching.status, .ok, "\(form): \(searching.text)")
            }
            let found = try await viewer.call(.POST, "/v1/queue/search", form: "lat=\(MatesPlaces.cityHall.lat)&long=\(MatesPlaces.cityHall.lon)")
            XCTAssertEqual(found.status, .ok, found.text)
            let people = try XCTUnwrap(try found.object()["fromQueueDB"] as? [[String: Any]])
            func person(_ client: SesacAppClient) -> [String: Any]? { people.first { $0["uid"] as? String == client.uid } }
            XCTAssertEqual(person(brackets)?["studylist"] as? [String], ["a", "b"], "studylist[]=…")
            XCTAssertEqual(person(lone)?["studylist"] as? [String], ["anything"], "a lone studylist=anything")
            XCTAssertEqual(person(absent)?["studylist"] as? [String], ["anything"], "no studylist key: anything")
            XCTAssertEqual(person(spaced)?["studylist"] as? [String], ["swift ui", "알고리즘", "data base"], "+ and %20 are spaces; UTF-8 escapes")
            XCTAssertEqual(person(spaced)?["nick"] as? String, "고래 밥")
            XCTAssertEqual(people.count, 4, "the viewer never sees itself")

            // A web user sees "anything" as no particular topic.
            let web = try await app.mate("웹보는이")
            let nearby = try await app.send(.GET, "\(Application.mates)/nearby?lat=\(MatesPlaces.cityHall.lat)&lon=\(MatesPlaces.cityHall.lon)",
                                            token: web.token).json(MatesJSON.Nearby.self)
            let lonesAccount = try await accountID(lone)
            XCTAssertEqual(nearby.people.first { $0.id == lonesAccount }?.topics, [])
        }
    }

    func testQueryStringsAreIgnoredAndNeverReadAsTheForm() async throws {
        try await withSesacApp { app, firebase in
            // DO: the sign-up form sent in the query string is a 501, and makes no account.
            let misplaced = try SesacAppClient(app: app, firebase: firebase)
            let inQuery = try await misplaced.call(.POST, "/v1/user?" + signUpForm(misplaced, nick: "쿼리"))
            XCTAssertEqual(inQuery.status.code, 501, inQuery.text)
            XCTAssertEqual(inQuery.errorCode, "missing_field")
            let notMade = try await misplaced.call(.GET, "/v1/user?=")
            XCTAssertEqual(notMade.status, .notAcceptable)

            let client = try SesacAppClient(app: app, firebase: firebase)
            try await client.signUp(nick: "질문표")
            let user = try await client.call(.GET, "/v1/user?=")
            XCTAssertEqual(user.status, .ok, "`?=` from a dummy [\"\": \"\"] is ignored: \(user.text)")
            let positionInQuery = try await client.call(.POST, "/v1/queue?lat=37.5665&long=126.978")
            XCTAssertEqual(positionInQuery.status.code, 501, "lat and long in the query do not count: \(positionInQuery.text)")
            let stateAfterRefusal = try await client.queueState().status.code
            XCTAssertEqual(stateAfterRefusal, 201, "not searching")
            let unknownKeys = try await client.call(.POST, "/v1/queue?=&foo=bar&lat=1&long=2",
                                                    form: "lat=\(MatesPlaces.cityHall.lat)&long=\(MatesPlaces.cityHall.lon)&studylist=x")
            XCTAssertEqual(unknownKeys.status, .ok, unknownKeys.text)
            let stopped = try await client.call(.DELETE, "/v1/queue?=")
            XCTAssertEqual(stopped.status, .ok, stopped.text)
            let stateAfterStop = try await client.queueState().status.code
            XCTAssertEqual(stateAfterStop, 201, "DELETE /v1/queue?= stopped the search")
        }
    }

    // MARK: Review picks

    func testReviewPicksInEveryEncodingAddToTheReputation() async throws {
        try await withSesacApp { app, firebase in
            let reviewee = try SesacAppClient(app: app, firebase: firebase)
            try await reviewee.signUp(nick: "평가받는이")
            func repeated(_ values: [String]) -> String { values.map { "reputation=\($0)" }.joined(separator: "&") }
            let variants: [(name: String, form: String, adds: [Int])] = [
                ("MH: six values", repeated(["1", "1", "0", "0", "0", "1"]), [1, 1, 0, 0, 0, 1]),
                ("RY: eight values, the last two ignored", repeated(["1", "0", "1", "0", "0", "0", "1", "1"]), [1, 0, 1, 0, 0, 0]),
                ("HL: nine values", repeated(["0", "1", "0", "0", "1", "0", "1", "1", "1"]), [0, 1, 0, 0, 1, 0]),
                ("values as quoted strings", repeated(["%221%22", "%220%22", "%220%22", "%221%22", "%220%22", "%220%22"]), [1, 0, 0, 1, 0, 0]),
                ("JH: one string", "reputation=" + "[0, 0, 0, 0, 1, 1, 0, 0, 0]".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                 [0, 0, 0, 0, 1, 1]),
            ]
            var expected = Array(repeating: 0, count: 9)
            for (number, variant) in variants.enumerated() {
                let rater = try SesacAppClient(app: app, firebase: firebase)
                try await rater.signUp(nick: "평가자\(number)")
                try await matchApps(rater, reviewee)
                let rated = try await rater.call(.POST, "/v1/queue/rate/\(reviewee.uid)",
                                                 form: "otheruid=\(reviewee.uid)&\(variant.form)&comment=%EA%B3%A0%EB%A7%88%EC%9B%8C%EC%9A%94+\(number)")
                XCTAssertEqual(rated.status, .ok, "\(variant.name): \(rated.text)")
                for index in variant.adds.indices { expected[index] += variant.adds[index] }
                let seen = try await userObject(reviewee)
                XCTAssertEqual(seen["reputation"] as? [Int], expected, variant.name)
                XCTAssertEqual((seen["comment"] as? [String])?.contains("고마워요 \(number)"), true, variant.name)
            }

            // A value other than 0 and 1: 501, and nothing changes: not the counters, not the match.
            let rater = try SesacAppClient(app: app, firebase: firebase)
            try await rater.signUp(nick: "잘못된평가")
            try await matchApps(rater, reviewee)
            for form in [repeated(["1", "2", "0", "0", "0", "0"]), "reputation=%5B1%2C%202%5D", repeated(["1", "x"])] {
                let refused = try await rater.call(.POST, "/v1/queue/rate/\(reviewee.uid)", form: "otheruid=\(reviewee.uid)&\(form)&comment=bad")
                XCTAssertEqual(refused.status.code, 501, "\(form): \(refused.text)")
                XCTAssertNotNil(refused.errorCode, "the JSON error body")
            }
            let after = try await userObject(reviewee)
            XCTAssertEqual(after["reputation"] as? [Int], expected)
            XCTAssertEqual((after["comment"] as? [String])?.contains("bad"), false)
            for (me, partner) in [(rater, reviewee), (reviewee, rater)] {
                let state = try await me.queueState()
                XCTAssertEqual(state.status, .ok)
                XCTAssertEqual(state.object["matched"] as? Int, 1, "the match still runs")
                XCTAssertEqual(state.object["reviewed"] as? Int, 0)
                XCTAssertEqual(state.object["matchedUid"] as? String, partner.uid)
            }
        }
    }

    // MARK: Sign-up

    func testBirthInEveryFormatTheAppsSendComesBackInOne() async throws {
        try await withSesacApp { app, firebase in
            let variants: [(sent: String, shown: String)] = [
                ("1995-06-15T09:00:00.000Z", "1995-06-15T09:00:00.000Z"),
                ("1995-06-15T09:00:00Z", "1995-06-15T09:00:00.000Z"),
                ("1995-06-15 00:00:00 +0000", "1995-06-15T00:00:00.000Z"),
                ("1995-06-15", "1995-06-15T00:00:00.000Z"),
            ]
            for (number, variant) in variants.enumerated() {
                let client = try SesacAppClient(app: app, firebase: firebase)
                try await client.signUp(nick: "생일\(number)", birth: variant.sent)
                let user = try await userObject(client)
                XCTAssertEqual(user["birth"] as? String, variant.shown, variant.sent)
                let profile = try await MatesStore(database: app.db, application: app).model(try await accountID(client))
                XCTAssertEqual(profile?.birthYear, 1995, variant.sent)
            }
            // SY's `Date.description` with `+` for its spaces, as a form encoder may write it.
            let plus = try SesacAppClient(app: app, firebase: firebase)
            let signedUp = try await plus.call(.POST, "/v1/user", form: "nick=%EC%83%9D%EC%9D%BC%EB%8D%94%ED%95%98%EA%B8%B0&gender=0"
                                               + "&birth=1995-06-15+00%3A00%3A00+%2B0000&phoneNumber=%2B821011112222")
            XCTAssertEqual(signedUp.status, .ok, signedUp.text)
            let plusUser = try await userObject(plus)
            XCTAssertEqual(plusUser["birth"] as? String, "1995-06-15T00:00:00.000Z")

            let accounts = try await User.query(on: app.db).count()
            for garbage in ["15/06/1995", "yesterday", "1995-13-01", "1995-02-30", "1995-06-15T25:00:00.000Z", "", "\(Calendar.current.component(.year, from: Date()))-01-01"] {
                let client = try SesacAppClient(app: app, firebase: firebase)
                let refused = try await client.call(.POST, "/v1/user", form: SesacAppClient.encode([("nick", "쓰레기생일"), ("birth", garbage), ("gender", "1")]))
                XCTAssertEqual(refused.status.code, 501, "\(garbage): \(refused.text)")
                XCTAssertNotNil(refused.errorCode, "\(garbage): the JSON error body")
                let none = try await client.call(.GET, "/v1/user")
                XCTAssertEqual(none.status, .notAcceptable, "\(garbage): no account was made")
            }
            let accountsAfter = try await User.query(on: app.db).count()
            XCTAssertEqual(accountsAfter, accounts)
        }
    }

    func testSignUpOutcomes() async throws {
        try await withSesacApp { app, firebase in
            _ = try await app.member("미나")
            let client = try SesacAppClient(app: app, firebase: firebase)
            let accounts = try await User.query(on: app.db).count()
            for nick in [String(repeating: "가", count: 21), "a<b", "미나"] {
                let refused = try await client.call(.POST, "/v1/user", form: signUpForm(client, nick: nick))
                XCTAssertEqual(refused.status.code, 202, "\(nick): \(refused.text)")
                XCTAssertTrue(refused.text.contains("닉네임"), "the reason, in Korean: \(refused.text)")
            }
            let stillNone = try await client.call(.GET, "/v1/user")
            XCTAssertEqual(stillNone.status, .notAcceptable)

            // A token from a sign-in without a phone number (email, say): no verified number, 501.
            var noPhone = try SesacAppClient(app: app, firebase: firebase)
            noPhone.token = try firebase.token(uid: noPhone.uid, phone: nil, email: "someone@example.com")
            let refusedNoPhone = try await noPhone.call(.POST, "/v1/user", form: signUpForm(noPhone, nick: "번호없음"))
            XCTAssertEqual(refusedNoPhone.status.code, 501, refusedNoPhone.text)
            XCTAssertEqual(refusedNoPhone.errorCode, "phone_sign_in_required")
            let noPhoneUser = try await noPhone.call(.GET, "/v1/user").status
            XCTAssertEqual(noPhoneUser, .notAcceptable)

            // A missing field: 501 with the JSON error, in Korean unless the reader asks for English.
            let complete = [("nick", "빠진것"), ("birth", "1995-06-15T09:00:00.000Z"), ("gender", "1")]
            for field in ["nick", "birth", "gender"] {
                let form = SesacAppClient.encode(complete.filter { $0.0 != field })
                let korean = try await client.call(.POST, "/v1/user", form: form)
                XCTAssertEqual(korean.status.code, 501, "\(field): \(korean.text)")
                XCTAssertEqual(korean.headers.contentType?.subType, "json", field)
                XCTAssertEqual(korean.errorCode, "missing_field", "\(field): \(korean.text)")
                XCTAssertEqual(korean.errorMessage, "'\(field)' 항목이 필요해요.", field)
                let english = try await client.call(.POST, "/v1/user", form: form, headers: ["Accept-Language": "en"])
                XCTAssertEqual(english.status.code, 501, field)
                XCTAssertEqual(english.errorMessage, "The field '\(field)' is required.", field)
            }
            let accountsAfter = try await User.query(on: app.db).count()
            XCTAssertEqual(accountsAfter, accounts, "none of those made an account")

            try await client.signUp(nick: "제대로")
            let again = try await client.call(.POST, "/v1/user", form: signUpForm(client, nick: "다시가입"))
            XCTAssertEqual(again.status.code, 201, again.text)
            let nickAfterRepeat = try await userObject(client)["nick"] as? String
            XCTAssertEqual(nickAfterRepeat, "제대로", "the second sign-up changed nothing")
            let accountsAtEnd = try await User.query(on: app.db).count()
            XCTAssertEqual(accountsAtEnd, accounts + 1)
        }
    }

    // MARK: Tokens

    func testTokensOfTheAllowedProjectsOnly() async throws {
        try await withSesacApp(extraProjects: ["sesac-second-project"]) { app, firebase in
            let first = try SesacAppClient(app: app, firebase: firebase)
            try await first.signUp(nick: "첫프로젝트")

            var second = try SesacAppClient(app: app, firebase: firebase)
            second.token = try firebase.token(uid: second.uid, phone: second.phone, project: "sesac-second-project")
            try await second.signUp(nick: "둘프로젝트")
            let secondNick = try await userObject(second)["nick"] as? String
            XCTAssertEqual(secondNick, "둘프로젝트")
            let link = try await AppUserStore(database: app.db).appUser(second.uid)
            XCTAssertEqual(link?.projectID, "sesac-second-project")

            var refused = first
            for (why, token) in [("another project", try firebase.token(uid: first.uid, phone: first.phone, project: "someone-elses-project")),
                                 ("alg none", firebase.unsignedToken(uid: first.uid)),
                                 ("signed by another key", try firebase.tokenSignedByAnotherKey(uid: first.uid))] {
                refused.token = token
                for (method, path) in [(HTTPMethod.GET, "/v1/user"), (.GET, "/v1/queue/myQueueState"), (.POST, "/v1/queue/search")] {
                    let response = try await refused.call(method, path, form: method == .GET ? nil : "lat=37.5&long=127")
                    XCTAssertEqual(response.status, .unauthorized, "\(why): \(method) \(path)")
                }
            }
            for (method, path) in [(HTTPMethod.GET, "/v1/user"), (.POST, "/v1/user"), (.POST, "/v1/queue")] {
                let missing = try await app.testable().performTest(request: TestingHTTPRequest(
                    method: method, url: URI(path: path), headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "lat=37.5&long=127")))
                XCTAssertEqual(missing.status, .unauthorized, "no idtoken header: \(method) \(path)")
            }

            // A valid token whose uid has not signed up: 406 everywhere but the sign-up.
            let stranger = try SesacAppClient(app: app, firebase: firebase)
            let routes: [(HTTPMethod, String, String?)] = [
                (.GET, "/v1/queue/myQueueState", nil), (.GET, "/v1/chat/x", nil), (.POST, "/v1/chat/x", "chat=hi"), (.GET, "/v1/user/shop/myinfo", nil),
                (.POST, "/v1/queue", "lat=37.5&long=127"), (.DELETE, "/v1/queue", nil), (.POST, "/v1/user/withdraw", nil),
                (.PUT, "/v1/user/mypage", "searchable=1"), (.POST, "/v1/queue/search", "lat=37.5&long=127"),
            ]
            for (method, path, form) in routes {
                let response = try await stranger.call(method, path, form: form)
                XCTAssertEqual(response.status, .notAcceptable, "\(method) \(path): \(response.text)")
            }
        }
    }

    func testWithoutProjectIDsEveryRouteRefusesEvenAValidToken() async throws {
        let firebase = try await FakeFirebase.start()
        do {
            try await withTestApp { app in
                XCTAssertNil(app.firebaseTokens)
                let client = try SesacAppClient(app: app, firebase: firebase)
                for (method, path) in allRoutes {
                    let response = try await client.call(method, path, form: method == .GET ? nil : signUpForm(client, nick: "꺼짐") + "&lat=37.5&long=127")
                    XCTAssertEqual(response.status, .unauthorized, "\(method) \(path): \(response.text)")
                }
                let appUsers = try await app.db.sql.count(SQLIdentifier(MatesAppUser.schema))
                XCTAssertEqual(appUsers, 0)
            }
        } catch {
            await firebase.stop()
            throw error
        }
        await firebase.stop()
    }

    // MARK: Shop

    func testReceiptsAreGrantedOnceWithTheTestVerifier() async throws {
        try await withSesacApp { app, firebase in
            XCTAssertEqual(app.settings.mates.appStore, .test)
            let client = try SesacAppClient(app: app, firebase: firebase)
            try await client.signUp(nick: "구매자")
            let account = try await accountID(client)
            let receipt = SesacAppClient.encode([("receipt", "MIIT+base64/receipt=="), ("product", "com.memolease.sesac1.sprout2")])
            for attempt in 1...2 {
                let bought = try await client.call(.POST, "/v1/user/shop/ios", form: receipt)
                XCTAssertEqual(bought.status, .ok, "attempt \(attempt): \(bought.text)")
            }
            let info = try await client.call(.GET, "/v1/user/shop/myinfo")
            XCTAssertEqual(info.status, .ok)
            XCTAssertEqual(try info.object()["sesacCollection"] as? [Int], [0, 2])
            XCTAssertEqual((try info.object()["transactionId"] as? [String])?.count, 1)
            let purchases = try await app.rowCount(MatesStore.Table.purchases) { $0.where(SQLIdentifier(MatesStore.PurchaseColumn.userID), .equal, SQLBind(account)) }
            XCTAssertEqual(purchases, 1, "the same receipt, sent again, is granted once")

            for product in ["com.memolease.sesac1.sprout9", "com.memolease.sesac1.background0", "com.example.gems"] {
                let unknown = try await client.call(.POST, "/v1/user/shop/ios", form: SesacAppClient.encode([("receipt", "MIIT"), ("product", product)]))
                XCTAssertEqual(unknown.status.code, 201, "\(product): \(unknown.text)")
            }
            let missing = try await client.call(.POST, "/v1/user/shop/ios", form: "product=com.memolease.sesac1.sprout1")
            XCTAssertEqual(missing.status.code, 501, missing.text)

            let worn = try await client.call(.POST, "/v1/user/shop/item", form: "sesac=2&background=0")
            XCTAssertEqual(worn.status, .ok, worn.text)
            let after = try await client.call(.GET, "/v1/user/shop/myinfo").object()
            XCTAssertEqual(after["sesac"] as? Int, 2)
            XCTAssertEqual(after["background"] as? Int, 0)
        }
    }

    func testReceiptsAreRefusedWithoutTheTestVerifier() async throws {
        try await withSesacApp(adjust: { $0.mates.appStore = .none }) { app, firebase in
            let client = try SesacAppClient(app: app, firebase: firebase)
            try await client.signUp(nick: "못사는이")
            let refused = try await client.call(.POST, "/v1/user/shop/ios",
                                                form: SesacAppClient.encode([("receipt", "MIIT+base64/receipt=="), ("product", "com.memolease.sesac1.sprout2")]))
            XCTAssertEqual(refused.status.code, 201, refused.text)
            let info = try await client.call(.GET, "/v1/user/shop/myinfo").object()
            XCTAssertEqual(info["sesacCollection"] as? [Int], [0])
            XCTAssertEqual(info["transactionId"] as? [String], [])
            let purchases = try await app.rowCount(MatesStore.Table.purchases)
            XCTAssertEqual(purchases, 0)
            let notOwned = try await client.call(.POST, "/v1/user/shop/item", form: "sesac=2&background=0")
            XCTAssertEqual(notOwned.status.code, 201)
        }
    }

    // MARK: My page, FCM token

    /// The apps' `searchable` is "let people find me by my number", not our visibility: turning it
    /// off keeps the user on everyone's map.
    func testTheAppsSearchableToggleDoesNotHideAnyone() async throws {
        try await withSesacApp { app, firebase in
            let hidden = try SesacAppClient(app: app, firebase: firebase), viewer = try SesacAppClient(app: app, firebase: firebase)
            try await hidden.signUp(nick: "번호비공개")
            try await viewer.signUp(nick: "둘러보기")
            let saved = try await hidden.call(.PUT, "/v1/user/mypage", form: "searchable=0&ageMin=18&ageMax=65&gender=1")
            XCTAssertEqual(saved.status, .ok, saved.text)
            try await hidden.search()
            let found = try await viewer.call(.POST, "/v1/queue/search", form: "lat=\(MatesPlaces.cityHall.lat)&long=\(MatesPlaces.cityHall.lon)")
            let people = try XCTUnwrap(try found.object()["fromQueueDB"] as? [[String: Any]])
            XCTAssertEqual(people.compactMap { $0["uid"] as? String }, [hidden.uid])
        }
    }

    func testMyPageAndTheFCMToken() async throws {
        try await withSesacApp { app, firebase in
            let client = try SesacAppClient(app: app, firebase: firebase)
            try await client.signUp(nick: "내정보", gender: 1)
            let saved = try await client.call(.PUT, "/v1/user/mypage", form: "searchable=0&ageMin=20&ageMax=40&gender=0&study=swift")
            XCTAssertEqual(saved.status, .ok, saved.text)
            var user = try await userObject(client)
            XCTAssertEqual(user["searchable"] as? Int, 0)
            XCTAssertEqual(user["ageMin"] as? Int, 20)
            XCTAssertEqual(user["ageMax"] as? Int, 40)
            XCTAssertEqual(user["gender"] as? Int, 0)
            XCTAssertEqual(user["study"] as? String, "swift")

            // MH drops a nil `study`: it stays.
            let withoutStudy = try await client.call(.PUT, "/v1/user/mypage", form: "searchable=1&ageMin=25&ageMax=45&gender=1")
            XCTAssertEqual(withoutStudy.status, .ok, withoutStudy.text)
            user = try await userObject(client)
            XCTAssertEqual(user["study"] as? String, "swift")
            XCTAssertEqual(user["searchable"] as? Int, 1)
            XCTAssertEqual(user["ageMin"] as? Int, 25)
            XCTAssertEqual(user["gender"] as? Int, 1)

            for form in ["study=swift+ui", "study=swift%20ui"] {
                let spaced = try await client.call(.PUT, "/v1/user/mypage", form: form)
                XCTAssertEqual(spaced.status, .ok, form)
                let study = try await userObject(client)["study"] as? String
                XCTAssertEqual(study, "swift ui", form)
            }

            // A range upside down: 501, and nothing of the form is saved.
            for form in ["searchable=0&ageMin=70&ageMax=20&gender=0&study=changed", "ageMin=70&ageMax=20", "gender=2&study=changed", "searchable=5"] {
                let refused = try await client.call(.PUT, "/v1/user/mypage", form: form)
                XCTAssertEqual(refused.status.code, 501, "\(form): \(refused.text)")
                XCTAssertNotNil(refused.errorCode, form)
                let unchanged = try await userObject(client)
                XCTAssertEqual(unchanged["ageMin"] as? Int, 25, form)
                XCTAssertEqual(unchanged["ageMax"] as? Int, 45, form)
                XCTAssertEqual(unchanged["searchable"] as? Int, 1, form)
                XCTAssertEqual(unchanged["gender"] as? Int, 1, form)
                XCTAssertEqual(unchanged["study"] as? String, "swift ui", form)
            }

            let fcm = try await client.call(.PUT, "/v1/user/update_fcm_token", form: "FCMtoken=abc")
            XCTAssertEqual(fcm.status, .ok, fcm.text)
            let fcmToken = try await userObject(client)["FCMtoken"] as? String
            XCTAssertEqual(fcmToken, "abc")
            let missing = try await client.call(.PUT, "/v1/user/update_fcm_token", form: "fcmtoken=def")
            XCTAssertEqual(missing.status.code, 501, missing.text)
            XCTAssertEqual(missing.errorCode, "missing_field")
            let fcmKept = try await userObject(client)["FCMtoken"] as? String
            XCTAssertEqual(fcmKept, "abc")
        }
    }
}

// MARK: - Helpers

/// Every `/v1` route, with placeholder uids.
private let allRoutes: [(HTTPMethod, String)] = [
    (.GET, "/v1/user"), (.POST, "/v1/user"), (.POST, "/v1/user/withdraw"), (.PUT, "/v1/user/mypage"), (.PUT, "/v1/user/update_fcm_token"),
    (.GET, "/v1/user/shop/myinfo"), (.POST, "/v1/user/shop/item"), (.POST, "/v1/user/shop/ios"), (.POST, "/v1/queue"), (.DELETE, "/v1/queue"),
    (.GET, "/v1/queue/myQueueState"), (.POST, "/v1/queue/search"), (.POST, "/v1/queue/studyrequest"), (.POST, "/v1/queue/studyaccept"),
    (.POST, "/v1/queue/dodge"), (.POST, "/v1/queue/rate/x"), (.POST, "/v1/chat/x"), (.GET, "/v1/chat/x?lastchatDate=2000-01-01T00:00:00.000Z"),
]

/// The sign-up form as `SesacAppClient.signUp` sends it.
private func signUpForm(_ client: SesacAppClient, nick: String) -> String {
    SesacAppClient.encode([("phoneNumber", client.phone), ("FCMtoken", "fcm-\(client.uid)"), ("nick", nick), ("birth", "1995-06-15T09:00:00.000Z"),
                           ("email", "\(client.uid.prefix(6))@example.com"), ("gender", "1")])
}
