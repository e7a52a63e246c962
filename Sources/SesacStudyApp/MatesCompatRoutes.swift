import Accounts
import Mates
import Notifications
import Platform
import SocketIO
import Vapor

/// The `/v1` API the 새싹 스터디 apps call (`../shared/contracts/sesac-study-api.md`), over the mates
/// service: the same profiles, queue, matches, reviews, shop and chat as the web pages, so an app
/// user and a browser user find each other and talk.
///
/// The apps' conventions, kept exactly: the Firebase ID token in an `idtoken` header (401 when it
/// is missing or not valid, 406 when its uid has not signed up), form bodies read leniently
/// (`LenientForm`), and 2xx codes other than 200 as business outcomes. Bad or missing parameters
/// answer 501, the apps' "client error" (with the usual JSON error body), not 400/422.
/// docs/MATES.md "Pointing a 새싹 스터디 app at this server" lists every route and code.
struct MatesCompatRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let v1 = routes.grouped("v1").grouped(SesacAppAuthentication())
        v1.get("user", use: user)
        v1.post("user", use: signUp)
        v1.post("user", "withdraw", use: withdraw)
        v1.put("user", "mypage", use: updateMyPage)
        v1.put("user", "update_fcm_token", use: updateFCMToken)
        v1.get("user", "shop", "myinfo", use: user)
        v1.post("user", "shop", "item", use: equip)
        v1.post("user", "shop", "ios", use: purchase)
        v1.post("queue", use: startSearching)
        v1.delete("queue", use: stopSearching)
        v1.get("queue", "myQueueState", use: myQueueState)
        v1.post("queue", "search", use: search)
        v1.post("queue", "studyrequest", use: studyRequest)
        v1.post("queue", "studyaccept", use: studyAccept)
        v1.post("queue", "dodge", use: dodge)
        v1.post("queue", "rate", ":uid", use: rate)
        v1.post("chat", ":uid", use: sendChat)
        v1.get("chat", ":uid", use: chatHistory)
    }

    // MARK: The user

    func user(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        return try await SesacUser(try await req.sesacApp.appUserRecord(appUser), now: req.application.matesEnvironment.now()).encodeResponse(for: req)
    }

    func signUp(req: Request) async throws -> Response {
        let identity = try req.sesacIdentity()
        let form = LenientForm(request: req)
        return try await Sesac.outcome(req, ["app_user_exists": 201, "nickname_not_allowed": 202]) {
            guard let nickname = form.value("nick") else { throw Sesac.missing("nick") }
            guard let birthText = form.value("birth") else { throw Sesac.missing("birth") }
            guard let birth = SesacWire.parseDate(birthText) else { throw AppError.invalid("invalid_birth_year") }
            let gender = try Sesac.gender(form, required: true) ?? .unspecified
            let signUp = AppSignUp(phoneNumber: form.value("phoneNumber") ?? identity.phoneNumber ?? "", fcmToken: form.value("FCMtoken") ?? "",
                                   nickname: nickname, birth: birth, email: form.value("email") ?? identity.email ?? "", gender: gender)
            let appUser = try await req.sesacApp.signUpApp(uid: identity.uid, projectID: identity.projectID, verifiedPhone: identity.phoneNumber,
                                                        signUp, accounts: req.accounts)
            // Created holding its binding cookie: this answer carries it.
            req.socketBindingUID = identity.uid
            return try await SesacUser(try await req.sesacApp.appUserRecord(appUser), now: req.application.matesEnvironment.now()).encodeResponse(for: req)
        }
    }

    func withdraw(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        try await req.sesacApp.withdrawApp(appUser, accounts: req.accounts)
        return Sesac.ok()
    }

    func updateMyPage(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        let form = LenientForm(request: req)
        return try await Sesac.outcome(req, [:]) {
            var change = MatesService.ProfileChange()
            change.gender = try Sesac.gender(form, required: false)
            var searchable: Bool?
            if form.value("searchable") != nil {
                guard let value = form.integer("searchable"), value == 0 || value == 1 else { throw Sesac.badField("searchable") }
                searchable = value == 1
            }
            for (key, path) in [("ageMin", \MatesService.ProfileChange.ageMin), ("ageMax", \MatesService.ProfileChange.ageMax)] where form.value(key) != nil {
                guard let age = form.integer(key) else { throw Sesac.badField(key) }
                change[keyPath: path] = age
            }
            let study = try form.value("study").map { try Sesac.study($0) }
            try await req.sesacApp.updateMyPage(appUser, change, study: study, searchable: searchable)
            return Sesac.ok()
        }
    }

    func updateFCMToken(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        let form = LenientForm(request: req)
        return try await Sesac.outcome(req, [:]) {
            guard let token = form.value("FCMtoken") else { throw Sesac.missing("FCMtoken") }
            guard token.utf8.count <= 4096 else { throw Sesac.badField("FCMtoken") }
            try await req.sesacApp.setPushToken(token, of: appUser)
            return Sesac.ok()
        }
    }

    // MARK: Shop

    func equip(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        let form = LenientForm(request: req)
        return try await Sesac.outcome(req, ["item_not_owned": 201, "unknown_item": 201]) {
            guard let avatar = form.integer("sesac") else { throw Sesac.missing("sesac") }
            guard let background = form.integer("background") else { throw Sesac.missing("background") }
            _ = try await req.mates.equip(avatar: avatar, background: background, for: appUser.userID)
            return Sesac.ok()
        }
    }

    /// The apps' receipts are for another company's products, which no App Store check of ours can
    /// verify: they are honoured only where purchases are test purchases, and answered 201
    /// ("receipt not valid") everywhere else.
    func purchase(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        let form = LenientForm(request: req)
        return try await Sesac.outcome(req, ["receipt_not_verifiable": 201, "unknown_product": 201]) {
            guard let receipt = form.value("receipt"), !receipt.isEmpty else { throw Sesac.missing("receipt") }
            guard let product = form.value("product") else { throw Sesac.missing("product") }
            guard req.application.settings.mates.appStore == .test else { throw AppError.invalid("receipt_not_verifiable") }
            _ = try await req.sesacApp.grantUnverifiedReceipt(receipt, product: product, for: appUser.userID)
            return Sesac.ok()
        }
    }

    // MARK: The queue

    func startSearching(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        if try await req.mates.profileSnapshot(appUser.userID).suspended { return Sesac.status(201, "suspended", req) }
        let form = LenientForm(request: req)
        do {
            return try await Sesac.outcome(req, ["already_matched": 200]) {
                let point = try Sesac.coordinate(form)
                try await req.sesacApp.appStartSearching(appUser, at: point, topics: SesacWire.studyList(form.values("studylist")))
                return Sesac.ok()
            }
        } catch let error as AppError where error.code == "search_blocked" {
            let dodges = try await req.sesacApp.dodgeCounts(appUser.userID)
            return Sesac.status(SesacWire.penaltyStatus(dodgesToday: dodges.today), error, req)
        }
    }

    func stopSearching(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        return try await Sesac.outcome(req, ["already_matched": 201]) {
            _ = try await req.mates.stopSearching(user: appUser.userID)
            return Sesac.ok()
        }
    }

    func myQueueState(req: Request) async throws -> Response {
        // Polled every few seconds by every app that searches: that common case is one statement.
        let identity = try req.sesacIdentity()
        switch try await req.sesacApp.appSearchingFastPath(uid: identity.uid, address: req.clientAddress) {
        case .unknown: throw AppError(.notAcceptable, "app_user_unknown")
        case .searching:
            req.socketBindingUID = identity.uid
            return Response(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8"], body: Self.searchingState)
        case .other: break
        }
        let appUser = try await req.sesacAppUser()
        guard let state = try await req.sesacApp.appQueueState(appUser) else { return Sesac.status(201, "normal_state", req) }
        var partnerUID: String?
        if let partner = state.partner { partnerUID = try await req.sesacApp.appUIDs(of: [partner])[partner] }
        return try await SesacQueueState(dodged: state.dodged ? 1 : 0, matched: state.matched ? 1 : 0, reviewed: state.reviewed ? 1 : 0,
                                         matchedNick: state.matched ? state.partnerNickname ?? "" : nil,
                                         matchedUid: state.matched ? partnerUID : nil).encodeResponse(for: req)
    }

    /// `{"dodged":0,"matched":0,"reviewed":0}`, encoded once.
    static let searchingState: Response.Body = {
        let state = SesacQueueState(dodged: 0, matched: 0, reviewed: 0, matchedNick: nil, matchedUid: nil)
        return Response.Body(data: (try? AppJSON.encoder().encode(state)) ?? Data())
    }()

    func search(req: Request) async throws -> Response {
        let account = try await req.sesacAppAccount()
        let form = LenientForm(request: req)
        return try await Sesac.outcome(req, [:]) {
            let point = try Sesac.coordinate(form)
            let standing = try await req.mates.standing(account)
            if standing.suspended { throw AppError(.forbidden, "suspended") }
            let found = try await req.mates.nearby(standing, at: point, limit: CursorPageRequest.maxLimit)
            let people = found.people + found.requestedMe
            let uids = try await req.sesacApp.appUIDs(of: people.map(\.id))
            let comments = try await req.mates.receivedComments(of: people.map(\.id))
            func wire(_ person: MatePerson) -> SesacSearch.Person {
                SesacSearch.Person(uid: uids[person.id] ?? person.id.uuidString.lowercased(), nick: person.nickname,
                                   lat: person.coordinate?.lat ?? point.lat, long: person.coordinate?.lon ?? point.lon,
                                   reputation: SesacWire.reputation(person.reputation), studylist: SesacWire.shownStudyList(person.topics),
                                   reviews: comments[person.id] ?? [], gender: SesacWire.genderNumber(MatesGender(rawValue: person.gender) ?? .unspecified),
                                   type: 0, sesac: person.avatar, background: person.background)
            }
            return SesacSearchJSON.write(SesacSearch(fromQueueDB: found.people.map(wire), fromQueueDBRequested: found.requestedMe.map(wire),
                                                     fromRecommend: found.recommendedTopics)).response()
        }
    }

    /// A request to someone who already asked me matches us at once and answers 201 (the apps'
    /// "상대방도 스터디를 요청하여 매칭되었습니다"). Some apps then call `studyaccept`, a harmless 200; HC
    /// (Heecheoljjang/SeSAC-Study) sends `studyrequest` again and reads its code as an accept's, where
    /// 200 is "accepted" and 201 "the other is matched with someone else": so a pair already matched
    /// together gets 200, and the app opens the chat.
    func studyRequest(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        let form = LenientForm(request: req)
        return try await Sesac.outcome(req, ["mate_not_searching": 202, "user_not_found": 202, "mate_already_matched": 202]) {
            let other = try await Sesac.other(form.value("otheruid"), req, unknown: "mate_not_searching")
            if try await req.mates.isMatched(appUser.userID, with: other) { return Sesac.ok() }
            return try await req.mates.requestMatch(from: appUser.userID, to: other) == nil ? Sesac.ok() : Sesac.status(201, "matched_by_request", req)
        }
    }

    func studyAccept(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        let form = LenientForm(request: req)
        let codes = ["mate_already_matched": 201, "mate_not_searching": 202, "request_not_found": 202, "already_matched": 203]
        return try await Sesac.outcome(req, codes) {
            let other = try await Sesac.other(form.value("otheruid"), req, unknown: "mate_not_searching")
            _ = try await req.mates.acceptRequest(from: other, by: appUser.userID)
            return Sesac.ok()
        }
    }

    func dodge(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        let form = LenientForm(request: req)
        return try await Sesac.outcome(req, ["wrong_partner": 201, "not_matched": 201]) {
            let other = try await Sesac.other(form.value("otheruid"), req, unknown: "wrong_partner")
            try await req.sesacApp.appDodge(appUser, other: other)
            return Sesac.ok()
        }
    }

    func rate(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        let form = LenientForm(request: req)
        return try await Sesac.outcome(req, ["wrong_partner": 201, "already_reviewed": 201, "match_not_ended": 201, "not_matched": 201]) {
            let other = try await Sesac.other(req.parameters.get("uid") ?? form.value("otheruid"), req, unknown: "wrong_partner")
            guard let picks = SesacWire.reputationPicks(form.values("reputation")) else { throw Sesac.badField("reputation") }
            try await req.sesacApp.appReview(appUser, other: other, picks: picks,
                                          comment: form.value("comment") ?? "")
            return Sesac.ok()
        }
    }

    // MARK: Chat

    func sendChat(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        let form = LenientForm(request: req)
        let uid = req.parameters.get("uid") ?? ""
        return try await Sesac.outcome(req, ["match_ended": 201, "not_matched": 201]) {
            guard let text = form.value("chat") else { throw Sesac.missing("chat") }
            let other = try await Sesac.other(uid, req, unknown: "not_matched")
            let profile = try await req.mates.profileSnapshot(appUser.userID)
            guard !profile.suspended else { throw AppError(.forbidden, "suspended") }
            guard let matchID = profile.matchID, let match = try? await req.mates.match(matchID, for: appUser.userID),
                  match.partner(of: appUser.userID) == other else { throw AppError.conflict("not_matched") }
            let message = try await req.mates.send(text, in: match, by: appUser.userID)
            return try await SesacChat(id: message.id, kind: message.kind, text: message.text, pin: message.pin, createdAt: message.createdAt,
                                       from: appUser.uid, to: uid).encodeResponse(for: req)
        }
    }

    /// Every line with that person after `lastchatDate` (as the apps show times: to the
    /// millisecond), oldest first. The apps build this URL by hand: a raw `:` is fine.
    func chatHistory(req: Request) async throws -> Response {
        let appUser = try await req.sesacAppUser()
        let uid = req.parameters.get("uid") ?? ""
        return try await Sesac.outcome(req, [:]) {
            var after = Date(timeIntervalSince1970: 946_684_800)
            if let text = req.queryValue("lastchatDate"), !text.isEmpty {
                guard let date = SesacWire.parseDate(text) else { throw Sesac.badField("lastchatDate") }
                after = date
            }
            guard let other = try await req.sesacApp.account(forAppUID: uid) else { return try await SesacChatList(payload: []).encodeResponse(for: req) }
            // Strictly after the millisecond the app saw (the stored time has microseconds).
            let bound = Double(JavaScriptDate.millisecond(of: after) + 1) / 1000 - 0.000_000_5
            let rows = try await req.mates.messagesBetween(appUser.userID, other, after: Date(timeIntervalSince1970: bound), limit: 2_000)
            let me = appUser.uid
            let payload = rows.compactMap { row -> SesacChat? in
                guard let sender = row.senderId else { return nil }
                let mine = sender == appUser.userID
                return SesacChat(id: row.id, kind: row.kind, text: row.text, pin: row.pin, createdAt: row.createdAt, from: mine ? me : uid, to: mine ? uid : me)
            }
            return try await SesacChatList(payload: payload).encodeResponse(for: req)
        }
    }
}
