import Accounts
import Fluent
import Notifications
import Platform
import Vapor

/// `/api/v1/mates/*`. Every route needs a signed-in account; all but verification also need a
/// confirmed code (403 `verification_required`) and an account not suspended (403 `suspended`).
struct MatesAPI: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let mates = routes.grouped("api", "v1", "mates")
        mates.post("verification", use: sendCode)
        mates.post("verification", "confirm", use: confirmCode)
        mates.delete("suspensions", ":user", use: liftSuspension)

        let verified = mates.grouped(MatesGate())
        verified.get("profile", use: profile)
        verified.put("profile", use: updateProfile)
        verified.put("profile", "appearance", use: equip)
        verified.post("queue", use: startSearching)
        verified.delete("queue", use: stopSearching)
        verified.get("nearby", use: nearby)
        verified.post("requests", use: request)
        verified.post("requests", ":request", "accept", use: accept)
        verified.get("state", use: state)
        verified.post("match", "dodge") { try await endMatch($0, dodged: true) }
        verified.post("match", "finish") { try await endMatch($0, dodged: false) }
        verified.post("match", "menu-game", use: startMenuGame)
        verified.post("reviews", use: review)
        verified.post("reports", use: report)
        verified.get("chat", ":match", "messages", use: messages)
        verified.post("chat", ":match", "messages", use: send)
        verified.post("chat", ":match", "read", use: markRead)
        verified.get("chat", ":match", "live", use: live)
        verified.get("shop", "items", use: shopItems)
        verified.get("shop", "collection", use: collection)
        verified.post("shop", "purchases", use: purchase)
    }

    // MARK: Verification

    func sendCode(req: Request) async throws -> Response {
        let user = try req.requireUser().requireID()
        let body = try req.decodeJSON(VerificationBody.self)
        let channel = try body.channel.required("channel")
        let sent = try await req.mates.sendCode(channel: channel, to: try body.destination.required("destination"), user: user,
                                                client: req.clientNetwork, language: req.language) { key, arguments in
            req.t(key, arguments)
        }
        return try await VerificationSent(channel: channel, destination: sent.masked, expiresAt: sent.expiresAt,
                                          resendAfterSeconds: Int(MatesService.resendInterval)).encodeResponse(status: .accepted, for: req)
    }

    func confirmCode(req: Request) async throws -> MatesProfileResponse {
        let user = try req.requireUser()
        let body = try req.decodeJSON(ConfirmBody.self)
        let destination = try body.destination.required("destination")
        let channel = body.channel ?? (destination.contains("@") ? .email : .phone)
        let profile = try await req.mates.confirmCode(channel: channel, destination: destination, code: try body.code.required("code"),
                                                      user: try user.requireID())
        return try await profileResponse(profile, req)
    }

    // MARK: Profile

    func profile(req: Request) async throws -> MatesProfileResponse {
        let profile = try req.matesSnapshot()
        return MatesProfileResponse(profile, nickname: try req.requireUser().nickname, comments: try await req.mates.receivedComments(profile.id))
    }

    func updateProfile(req: Request) async throws -> MatesProfileResponse {
        let body = try req.decodeJSON(ProfileBody.self)
        let change = MatesService.ProfileChange(gender: body.gender, birthYear: body.birthYear, topics: body.topics, searchable: body.searchable,
                                                ageMin: body.ageMin, ageMax: body.ageMax)
        return try await profileResponse(try await req.mates.updateProfile(try await req.matesProfile(), change), req)
    }

    private func profileResponse(_ profile: MatesProfile, _ req: Request) async throws -> MatesProfileResponse {
        let user = try req.requireUser()
        return try MatesProfileResponse(profile, nickname: user.nickname, comments: try await req.mates.receivedComments(profile.id))
    }

    // MARK: The queue

    func startSearching(req: Request) async throws -> MatesStateResponse {
        let body = try req.decodeJSON(QueueBody.self)
        let point = try coordinate(try body.lat.required("lat"), try body.lon.required("lon"))
        let profile = try await req.mates.startSearching(try await req.matesProfile(), at: point, topics: body.topics ?? [])
        return try await stateResponse(profile, req)
    }

    func stopSearching(req: Request) async throws -> MatesStateResponse {
        try await stateResponse(try await req.mates.stopSearching(try await req.matesProfile()), req)
    }

    func nearby(req: Request) async throws -> Response {
        let point = try coordinate(try req.queryNumber("lat"), try req.queryNumber("lon"))
        var limit = 50
        if let raw = req.queryValue("limit") {
            guard let parsed = Int(raw), (1...CursorPageRequest.maxLimit).contains(parsed) else {
                throw AppError.badRequest("invalid_limit", ["max": String(CursorPageRequest.maxLimit)])
            }
            limit = parsed
        }
        let found = try await req.mates.nearby(try req.matesStanding(), at: point, limit: limit)
        return NearbyJSON.write(people: found.people, recommendedTopics: found.recommendedTopics, requestedMe: found.requestedMe,
                                radiusMeters: Int(req.application.settings.mates.radiusMeters)).response()
    }

    private func coordinate(_ lat: Double, _ lon: Double) throws -> Coordinate {
        do { return try Coordinate(lat: lat, lon: lon) } catch { throw MatesService.appError(error) }
    }

    // MARK: Requests and the match

    func request(req: Request) async throws -> Response {
        let target = try req.decodeJSON(RequestBody.self).to.required("to")
        let outcome = try await req.mates.request(from: try await req.matesProfile(), to: target)
        let response = MatesRequestResponse(id: outcome.request?.id, to: target, matched: outcome.match != nil,
                                            state: try await stateResponse(try await reloadedProfile(req), req))
        return try await response.encodeResponse(status: outcome.match != nil ? .ok : .created, for: req)
    }

    func accept(req: Request) async throws -> MatesStateResponse {
        guard let id = req.parameters.get("request").flatMap(UUID.init(uuidString:)) else { throw AppError.notFound("request_not_found") }
        let profile = try await req.matesProfile()
        _ = try await req.mates.acceptRequest(id, by: profile.id)
        return try await stateResponse(try await reloadedProfile(req), req)
    }

    func state(req: Request) async throws -> MatesStateResponse {
        let profile = try req.matesSnapshot()
        return MatesStateResponse(try await req.mates.state(of: profile), profile: profile, me: profile.id)
    }

    func endMatch(_ req: Request, dodged: Bool) async throws -> MatesStateResponse {
        _ = try await req.mates.endMatch(try await req.matesProfile(), dodged: dodged)
        return try await stateResponse(try await reloadedProfile(req), req)
    }

    func startMenuGame(req: Request) async throws -> Response {
        let sentToken = try req.headers.first(name: DeviceToken.header).map(DeviceToken.validate)
        let hostToken = sentToken ?? SecureRandom.token()
        guard let games = req.application.groupGameOpener else { throw AppError.notFound() }
        let profile = try await req.matesProfile()
        let started = try await req.mates.startMenuGame(profile) {
            try await games.open(req, hostToken, profile.id)
        }
        return try await MenuGameStarted(pin: started.pin, link: games.link(started.pin), hostToken: sentToken == nil ? hostToken : nil,
                                         message: started.message).encodeResponse(status: .created, for: req)
    }

    private func reloadedProfile(_ req: Request) async throws -> MatesProfile {
        try await req.mates.verifiedProfile(try req.matesStanding().id)
    }

    private func stateResponse(_ profile: MatesProfile, _ req: Request) async throws -> MatesStateResponse {
        try MatesStateResponse(try await req.mates.state(of: profile), profile: profile, me: profile.id)
    }

    // MARK: Reviews and reports

    func review(req: Request) async throws -> Response {
        let body = try req.decodeJSON(MatesReviewBody.self)
        let me = try req.matesStanding().id
        let review = try await req.mates.review(matchID: try body.matchId.required("matchId"), picks: try body.reputation.required("reputation"),
                                                comment: body.comment ?? "", by: me)
        return try await MatesReviewResponse(id: review.id, matchId: review.matchID, userId: review.revieweeID,
                                             reputation: review.reputation, comment: review.comment,
                                             createdAt: review.createdAt ?? req.application.matesEnvironment.now()).encodeResponse(status: .created, for: req)
    }

    func report(req: Request) async throws -> Response {
        let body = try req.decodeJSON(MatesReportBody.self)
        let report = try await req.mates.report(try body.userId.required("userId"), categories: try body.categories.required("categories"),
                                                comment: body.comment ?? "", by: try req.matesStanding().id)
        return try await MatesReportResponse(id: report.id, userId: report.reportedID,
                                             categories: report.categoryNames,
                                             createdAt: report.createdAt ?? req.application.matesEnvironment.now()).encodeResponse(status: .created, for: req)
    }

    func liftSuspension(req: Request) async throws -> MatesProfileResponse {
        let admin = try req.requireAdmin()
        guard let id = req.parameters.get("user").flatMap(UUID.init(uuidString:)) else { throw AppError.notFound("user_not_found") }
        let profile = try await req.mates.liftSuspension(of: id, by: try admin.requireID())
        let nickname = try await AccountStore.person(id, on: req.db)?.nickname ?? ""
        return try MatesProfileResponse(profile, nickname: nickname, comments: try await req.mates.receivedComments(id))
    }

    // MARK: Chat

    private func chatMatch(_ req: Request) async throws -> (match: MatchRow, me: UUID) {
        let me = try req.matesStanding().id
        guard let id = req.parameters.get("match").flatMap(UUID.init(uuidString:)) else { throw AppError.notFound("match_not_found") }
        return (try await req.mates.match(id, for: me), me)
    }

    func messages(req: Request) async throws -> ChatPage {
        let (match, me) = try await chatMatch(req)
        func cursor(_ name: String) throws -> PageCursor? {
            guard let raw = req.query[String.self, at: name], !raw.isEmpty else { return nil }
            guard let cursor = PageCursor(encoded: raw) else { throw AppError.badRequest("invalid_cursor") }
            return cursor
        }
        let limit = try CursorPageRequest(from: req).limit
        let page = try await req.mates.messages(in: match, before: try cursor("before") ?? cursor("cursor"), after: try cursor("after"), limit: limit)
        return ChatPage(items: page.items, nextCursor: page.nextCursor, unreadCount: try await req.mates.unreadCount(in: match, for: me),
                        partnerReadAt: match.readAt(of: match.partner(of: me)), open: match.endedAt == nil)
    }

    func send(req: Request) async throws -> Response {
        let (match, me) = try await chatMatch(req)
        let body = try req.decodeJSON(MessageBody.self)
        let message = try await req.mates.send(try body.text.required("text"), in: match, by: me, clientId: body.clientId.map { String($0.prefix(64)) })
        return try await message.encodeResponse(status: .created, for: req)
    }

    func markRead(req: Request) async throws -> ChatReadResponse {
        let (match, me) = try await chatMatch(req)
        let body = try req.decodeJSON(ChatReadBody.self)
        let readAt = try await req.mates.markRead(match, upTo: body.messageId, by: me)
        let read = readAt.map { match.reading(me, upTo: $0) } ?? match
        return ChatReadResponse(readAt: readAt, unreadCount: try await req.mates.unreadCount(in: read, for: me))
    }

    /// The pair's live chat: see `MatesChatSocket`.
    func live(req: Request) async throws -> Response {
        let (match, me) = try await chatMatch(req)
        return try MatesChatSocket.open(match: match, me: me, req)
    }

    // MARK: Shop

    func shopItems(req: Request) async throws -> ShopItemsResponse {
        let owned = try await req.mates.collection(of: try await req.matesProfile())
        return ShopItemsResponse(items: MatesShopCatalog.items.map { itemResponse($0, owned: owned, req) })
    }

    private func itemResponse(_ item: MatesShopItem, owned: MatesCollection, _ req: Request) -> ShopItemResponse {
        let ownedIndexes = item.kind == .avatar ? owned.avatars : owned.backgrounds
        return ShopItemResponse(id: item.id, kind: item.kind, index: item.index, name: req.t("mates.item.\(item.kind.rawValue).\(item.index)"),
                                price: item.price, productId: item.productID, owned: ownedIndexes.contains(item.index))
    }

    func collection(req: Request) async throws -> CollectionResponse {
        CollectionResponse(try await req.mates.collection(of: try await req.matesProfile()))
    }

    func purchase(req: Request) async throws -> Response {
        let body = try req.decodeJSON(PurchaseBody.self)
        let bought = try await req.mates.purchase(signedTransaction: try body.signedTransaction.required("signedTransaction"),
                                                  for: try await req.matesProfile(), verifier: req.application.appStoreVerifier)
        return try await PurchaseResponse(item: itemResponse(bought.item, owned: bought.collection, req), collection: CollectionResponse(bought.collection))
            .encodeResponse(status: .created, for: req)
    }

    func equip(req: Request) async throws -> CollectionResponse {
        let body = try req.decodeJSON(AppearanceBody.self)
        return CollectionResponse(try await req.mates.equip(avatar: body.avatar, background: body.background, for: try await req.matesProfile()))
    }
}

/// Signed in, verified, not suspended: what every mates route but verification needs. Reads only
/// the caller's standing (`MatesStanding`, one small query); handlers that change the profile load
/// it with `req.matesProfile()`.
struct MatesGate: AsyncMiddleware {
    /// Pages send an account that has not verified to the start page instead of answering 403.
    var sendsPagesToVerification = false

    /// Where a suspended account may still go: its own profile and state, to see why.
    static let readableWhileSuspended: Set<String> = ["/api/v1/mates/profile", "/api/v1/mates/state", MatesPages.Tab.profile.path]

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        if let redirect = try await admit(request) { return redirect }
        return try await next.respond(to: request)
    }

    /// Reads the caller's profile row and keeps it for the handler; answers the redirect to the
    /// start page (pages, not verified), throws 403 (API not verified, or suspended), or nil: go on.
    func admit(_ request: Request) async throws -> Response? {
        let user = try request.requireUser().requireID()
        let snapshot: MatesProfileSnapshot
        do {
            snapshot = try await request.mates.profileSnapshot(user)
        } catch let error as AppError where sendsPagesToVerification && error.code == "verification_required" {
            return Layout.redirect(to: MatesPath.start())
        }
        let readsOwnStanding = request.method == .GET && Self.readableWhileSuspended.contains(request.url.path)
        if snapshot.suspended && !readsOwnStanding { throw AppError(.forbidden, "suspended") }
        request.storage[MatesSnapshotKey.self] = snapshot
        return nil
    }
}

/// The caller's profile as the gate read it, before the handler changed anything.
private struct MatesSnapshotKey: StorageKey { typealias Value = MatesProfileSnapshot }
private struct MatesProfileKey: StorageKey { typealias Value = MatesProfile }

extension Request {
    /// The caller's standing, read by `MatesGate`.
    func matesStanding() throws -> MatesStanding {
        try matesSnapshot().standing
    }

    /// The caller's own profile as the gate read it at the start of the request. A handler that
    /// changes the profile reads it again (`reloadedProfile`) instead.
    func matesSnapshot() throws -> MatesProfileSnapshot {
        guard let snapshot = storage[MatesSnapshotKey.self] else { throw AppError(.forbidden, "verification_required") }
        return snapshot
    }

    /// The caller's whole profile, read once per request on first use.
    func matesProfile() async throws -> MatesProfile {
        if let profile = storage[MatesProfileKey.self] { return profile }
        let profile = try await mates.verifiedProfile(try matesStanding().id)
        storage[MatesProfileKey.self] = profile
        return profile
    }
}
