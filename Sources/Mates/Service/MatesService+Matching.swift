import Accounts
package import Fluent
import Metrics
import NIOConcurrencyHelpers
import Notifications
package import Platform
import SQLKit
import Vapor

extension MatesService {
    // MARK: The queue

    /// Starts (or moves) a search at a position with topics. Refused while matched, while a
    /// dodge penalty lasts, and until the profile has a birth year (ages are how people filter).
    /// `startSearching` for an account (callers that hold ids, not profiles: the apps' layer).
    package func startSearching(user: UUID, at point: Coordinate, topics: [String]) async throws {
        _ = try await startSearching(try await verifiedProfile(user), at: point, topics: topics)
    }

    func startSearching(_ profile: MatesProfile, at point: Coordinate, topics rawTopics: [String]) async throws -> MatesProfile {
        let topics: [String]
        do { topics = try MatesRules.normalizedTopics(rawTopics) } catch { throw Self.appError(error) }
        try checkNotBlocked(profile)
        guard profile.birthYear != nil else { throw AppError.invalid("profile_incomplete") }
        let user = profile.id
        // A new search starts with no requests: those from before a match or a stop are stale.
        if profile.matesState == .idle { try await store.dropRequests(involving: [user]) }
        guard try await store.startSearching(user, at: point, topics: topics, now: now) else { throw AppError.conflict("already_matched") }
        return try await verifiedProfile(user)
    }

    func checkNotBlocked(_ profile: MatesProfile) throws {
        if let until = profile.searchBlockedUntil, until > now {
            // A stored time reads back within a microsecond of what was written: counted in whole
            // milliseconds, a pause of a minute is 60 s (and "1분"), never 61 s and "2분".
            let remaining = (until.timeIntervalSince(now) * 1000).rounded(.down) / 1000
            let seconds = max(1, Int(remaining.rounded(.up)))
            throw AppError(.forbidden, "search_blocked", arguments: ["minutes": String((seconds + 59) / 60)],
                           headers: ["Retry-After": String(seconds)])
        }
    }

    /// Stops searching; what was asked of or by this person goes with it. Refused while matched.
    package func stopSearching(user: UUID) async throws {
        _ = try await stopSearching(try await verifiedProfile(user))
    }

    func stopSearching(_ profile: MatesProfile) async throws -> MatesProfile {
        let user = profile.id
        guard try await store.stopSearching(user) else { throw AppError.conflict("already_matched") }
        try await store.dropRequests(involving: [user])
        return try await verifiedProfile(user)
    }

    /// Stops searches nobody renewed within `searchLifetime`.
    func expireSearches() async throws -> Int {
        let users = try await store.stopSearches(renewedBefore: now.addingTimeInterval(-Self.searchLifetime))
        try await store.dropRequests(involving: users)
        return users.count
    }

    // MARK: Nearby

    /// Who searches around a point that this person may see and be seen by: searchable, each
    /// one's age within the other's range. Nearest first.
    /// The people searching near the caller: around where the caller searches, while they do
    /// (`point` is then ignored: asking from elsewhere must not help locate anyone), else around
    /// `point`. Positions and distances are public ones (`SearchPositionBlur`).
    package func nearby(_ profile: MatesStanding, at requested: Coordinate, limit: Int) async throws
        -> (people: [MatePerson], recommendedTopics: [String], requestedMe: [MatePerson])
    {
        let point = profile.searchPosition ?? requested
        guard let birthYear = profile.birthYear else { throw AppError.invalid("profile_incomplete") }
        let year = MatesRules.calendarYear(of: now)
        let viewer = SearchingIndex.Viewer(id: profile.id, age: year - birthYear, range: profile.ageRange, year: year)
        let index = try await loadedIndex()
        let found = index.nearby(point, radiusMeters: radiusMeters, viewer: viewer, limit: limit, topics: 8)
        // Who asked me comes from the store's memory: every `/nearby` shows them.
        let requestedMe = try await store.askers(of: viewer.id).compactMap { asker in
            index.entry(asker).map { Self.person($0, meters: point.distanceMeters(to: $0.coordinate)) }
        }
        return (found.people.map { Self.person($0.entry, meters: $0.meters) }, found.mostWanted, requestedMe)
    }

    static func canSee(_ entry: SearchingIndex.Entry, age: Int, range: ClosedRange<Int>, now: Date) -> Bool {
        let year = MatesRules.calendarYear(of: now)
        return SearchingIndex.Viewer(id: UUID(), age: age, range: range, year: year).sees(SearchingIndex.Filter(entry))
    }

    package static func person(_ entry: SearchingIndex.Entry, meters: Double?) -> MatePerson {
        var person = MatePerson(id: entry.id, nickname: entry.nickname, gender: entry.gender, topics: entry.topics, reputation: entry.reputation,
                                avatar: entry.avatar, background: entry.background, distanceMeters: meters, coordinate: entry.coordinate)
        person.jsonAfterDistance = entry.jsonAfterDistance
        return person
    }

    /// A person as others see them (the partner on the chat, review and report pages).
    package func person(_ user: UUID) async throws -> MatePerson? {
        try await store.person(user)
    }

    // MARK: Requests and matches

    /// `request` for an account (callers that hold ids: the apps' layer): the match, when `target`
    /// had already asked back.
    package func requestMatch(from user: UUID, to target: UUID) async throws -> MatchRow? {
        try await request(from: try await verifiedProfile(user), to: target).match
    }

    /// Asks someone searching to meet. Both must be searching and see each other. When they had
    /// already asked back, this is their acceptance: the two are matched at once (requests that
    /// meet halfway meet, on the web and in the apps alike).
    func request(from profile: MatesProfile, to target: UUID) async throws -> (request: MatesRequest?, match: MatchRow?) {
        let me = profile.id
        guard target != me else { throw AppError.invalid("cannot_request_self") }
        guard profile.matesState != .matched else { throw AppError.conflict("already_matched") }
        guard profile.matesState == .searching, let birthYear = profile.birthYear else { throw AppError.conflict("not_searching") }
        guard try await store.exists(target) else { throw AppError.notFound("user_not_found") }
        guard let entry = try await loadedIndex().entry(target) else { throw AppError.conflict("mate_not_searching") }
        guard Self.canSee(entry, age: MatesRules.age(birthYear: birthYear, now: now), range: profile.ageRange, now: now) else {
            throw AppError.notFound("user_not_found")
        }
        if let theirs = try await store.request(from: target, to: me) {
            return (nil, try await accept(theirs, by: me))
        }
        if let existing = try await store.request(from: me, to: target) {
            return (existing, nil)
        }
        // The same request sent twice at once: the first one stands.
        let written = try await store.createRequest(from: me, to: target)
        guard written.created, let request = written.request else { return (written.request, nil) }
        try await inbox.post(NotificationDraft(recipient: target, actor: me, service: "mates", kind: "mates_request",
                                               subjectID: request.id, link: MatesPath.home(), once: true))
        return (request, nil)
    }

    /// Whether the account is matched with `other` now.
    package func isMatched(_ user: UUID, with other: UUID) async throws -> Bool {
        try await isMatched(try await verifiedProfile(user), with: other)
    }

    /// Whether `profile` is matched with `other` now.
    func isMatched(_ profile: MatesProfile, with other: UUID) async throws -> Bool {
        try await currentMatch(of: profile)?.partner(of: profile.id) == other
    }

    /// The match `profile` is in, if any.
    func currentMatch(of profile: MatesProfile) async throws -> MatchRow? {
        guard profile.matesState == .matched, let matchID = profile.matchID else { return nil }
        return try await store.liveMatch(matchID)
    }

    package func acceptRequest(_ id: UUID, by me: UUID) async throws -> MatchRow {
        guard let request = try await store.request(id), request.toID == me else { throw AppError.notFound("request_not_found") }
        return try await accept(request, by: me)
    }

    /// Accepts what `asker` asked of me, named by person (the 새싹 스터디 apps' way). Already
    /// matched with them (we asked each other, which matched us), it is that match. Without such a
    /// request, says why: I am matched, they are matched, they stopped searching, or 404.
    package func acceptRequest(from asker: UUID, by me: UUID) async throws -> MatchRow {
        if let request = try await store.request(from: asker, to: me) {
            return try await accept(request, by: me)
        }
        if let profile = try await store.model(me), let current = try await currentMatch(of: profile),
           current.partner(of: me) == asker {
            return current
        }
        let states = try await store.states(of: [asker, me])
        func state(_ user: UUID) -> MatesState? { states[user] }
        if state(me) == .matched { throw AppError.conflict("already_matched") }
        switch state(asker) {
        case .matched: throw AppError.conflict("mate_already_matched")
        case .searching: throw AppError.notFound("request_not_found")
        default: throw AppError.conflict("mate_not_searching")
        }
    }

    /// Matches the asker with the one who accepts, or nobody: both profiles move from searching
    /// to matched in one transaction, each only if it is still searching. Rows are taken in id
    /// order, so two accepts crossing wait for each other instead of deadlocking; the second
    /// finds someone already matched and gets 409.
    private func accept(_ request: MatesRequest, by me: UUID) async throws -> MatchRow {
        let asker = request.fromID
        let matchID = UUID()
        let created = NIOLockedValueBox<MatchRow?>(nil)
        let failed = try await acceptTransaction { store in
            for user in [asker, me].sorted(by: { $0.uuidString < $1.uuidString }) {
                if try await !store.moveToMatch(user, match: matchID) { throw AcceptFailed(user: user) }
            }
            let match = try await store.createMatch(id: matchID, asker: asker, accepter: me)
            created.withLockedValue { $0 = match }
            // Only the pair's own requests go: others asked of either stay, so a second accept
            // racing this one finds its request and learns (409) that the person is taken.
            try await store.dropRequests(between: asker, and: me)
        }
        if let failed {
            let state = try await store.states(of: [failed])[failed]
            switch (failed == me, state) {
            case (true, .matched): throw AppError.conflict("already_matched")
            case (true, _): throw AppError.conflict("not_searching")
            case (false, .matched): throw AppError.conflict("mate_already_matched")
            case (false, _): throw AppError.conflict("mate_not_searching")
            }
        }
        guard let match = created.withLockedValue({ $0 }) else { throw AppError.conflict("not_searching") }
        Counter(label: "whatweeat_mates_matches_total").increment()
        try await inbox.post(NotificationDraft(recipient: asker, actor: me, service: "mates", kind: "mates_matched",
                                               subjectID: matchID, link: MatesPath.chat(matchID)))
        return match
    }

    struct AcceptFailed: Error { package let user: UUID }

    /// Ends the current match: `finished` normally, `dodged` early (the dodger's penalty counts
    /// it). Both go back to idle; the partner hears of it in the chat and the inbox.
    package func endMatch(of user: UUID, dodged: Bool) async throws -> MatchRow {
        try await endMatch(try await verifiedProfile(user), dodged: dodged)
    }

    func endMatch(_ profile: MatesProfile, dodged: Bool) async throws -> MatchRow {
        let me = profile.id
        guard profile.matesState == .matched, let matchID = profile.matchID,
              var match = try await store.match(matchID) else { throw AppError.conflict("not_matched") }
        let now = self.now
        let reason = dodged ? "dodged" : "finished"
        try await store.transaction { store in
            guard try await store.endMatch(matchID, by: me, reason: reason, at: now) else { throw AppError.conflict("not_matched") }
            try await store.leaveMatch(matchID)
            if dodged { try await recordDodge(me, match: matchID, now: now, in: store) }
        }
        match.endedAt = now
        match.endedBy = me
        match.endReason = reason
        let partner = match.partner(of: me)
        await publishChat(ChatEvent.ended(reason: reason, by: me), match: matchID)
        try await inbox.post(NotificationDraft(recipient: partner, actor: me, service: "mates", kind: dodged ? "mates_dodged" : "mates_finished",
                                               subjectID: matchID, link: MatesPath.chat(matchID)))
        return match
    }

    private func recordDodge(_ user: UUID, match: UUID, now: Date, in store: MatesStore) async throws {
        try await store.recordDodge(by: user, match: match, at: now)
        let recent = try await store.countDodges(by: user, since: now.addingTimeInterval(-DodgePenalty.window))
        guard let until = DodgePenalty.blockedUntil(dodgesInWindow: recent, now: now) else { return }
        try await store.blockSearching(user, until: until)
    }

    // MARK: State

    func state(of profile: MatesProfile) async throws -> MatesStateInfo {
        return try await state(of: profile.snapshot)
    }

    package func state(of profile: MatesProfileSnapshot) async throws -> MatesStateInfo {
        let me = profile.id
        var match: MatchRow?, partner: MatePerson?
        if profile.state == .matched, let id = profile.matchID, let found = try await store.match(id) {
            match = found
            partner = try await person(found.partner(of: me))
        }
        var last: (MatchRow, MatePerson?, Bool)?
        // Every mates page asks; most people have no match that ended this week, so the newest
        // ended one is known from the person's record (memory) and built only when it is shown.
        if match == nil, let ended = try await store.record(me)?.lastEnded, now.timeIntervalSince(ended.endedAt) < 7 * 24 * 3600,
            let ended = try await store.match(ended.id) {
            last = (ended, try await person(ended.partner(of: me)), try await hasReviewed(ended, by: me))
        }
        let blocked = profile.searchBlockedUntil.flatMap { $0 > now ? $0 : nil }
        var info = MatesStateInfo(state: profile.state, match: match, partner: partner, reviewed: false, lastMatch: last, searchBlockedUntil: blocked)
        if let match { info.unreadCount = try await unreadCount(in: match, for: me) }
        return info
    }

    package func hasReviewed(_ match: MatchRow, by user: UUID) async throws -> Bool {
        try await store.hasReviewed(match.id, by: user)
    }

    /// The match, the partner and whether `user` reviewed it, as a match's pages show them: from
    /// `MatchPageViews` while nothing they show changed (404 `match_not_found` as `match(_:for:)`).
    package func matchPage(_ id: UUID, for user: UUID) async throws -> (match: MatchRow, partner: MatePerson?, reviewed: Bool) {
        let views = application.matesEnvironment.matchPageViews
        guard let match = try await views.match(id, read: { try await store.match(id) }), match.includes(user) else {
            throw AppError.notFound("match_not_found")
        }
        let partnerID = match.partner(of: user)
        let partner = try await views.person(partnerID) { try await store.person(partnerID) }
        let reviewed = try await views.hasReviewed(id, by: user) { try await store.hasReviewed(id, by: user) }
        return (match, partner, reviewed)
    }

    /// The match with this id if this person was one of its two; 404 for everyone else, admins too
    /// (a chat is the pair's).
    package func match(_ id: UUID, for user: UUID) async throws -> MatchRow {
        guard let match = try await store.match(id), match.includes(user) else { throw AppError.notFound("match_not_found") }
        return match
    }

    // MARK: Reviews and reports

    /// One review per side of an ended match: the picks add to the other's reputation, the comment
    /// joins the comments on their profile.
    package func review(matchID: UUID, picks rawPicks: [Int], comment rawComment: String, by me: UUID) async throws -> ReviewRow {
        let picks: [Bool], comment: String
        do {
            picks = try MatesRules.checkReputation(rawPicks)
            comment = try MatesRules.checkReviewComment(rawComment)
        } catch { throw Self.appError(error) }
        let match = try await match(matchID, for: me)
        guard match.endedAt != nil else { throw AppError.conflict("match_not_ended") }
        let reviewee = match.partner(of: me)
        let review = try await store.transaction { store in
            try await store.addReview(match: matchID, by: me, of: reviewee, picks: picks, comment: comment)
        }
        if !comment.isEmpty { await application.receivedCommentsMemory.forget(reviewee, announcingOn: events) }
        await application.matesEnvironment.matchPageViews.changed(on: events)
        return review
    }

    /// Reports someone this person was matched with. Three different reporters (since an admin
    /// last lifted a suspension) suspend the account from mates.
    package func report(_ target: UUID, categories rawCategories: [String], comment rawComment: String, by me: UUID) async throws -> ReportRow {
        let checked: (categories: [ReportCategory], comment: String)
        do { checked = try MatesRules.checkReport(categories: rawCategories, comment: rawComment) } catch { throw Self.appError(error) }
        guard target != me else { throw AppError.invalid("cannot_report_self") }
        guard let reported = try await store.model(target) else { throw AppError.notFound("user_not_found") }
        let shared = try await store.newestMatch(of: me, with: target)
        guard shared != nil else { throw AppError(.forbidden, "report_needs_match") }
        let report = try await store.addReport(by: me, of: target, categories: checked.categories, comment: checked.comment)
        if reported.suspendedAt == nil, try await store.countReports(of: target, since: reported.reportsClearedAt) >= MatesRules.reportsToSuspend {
            try await suspend(reported)
        }
        return report
    }

    /// Takes an account out of mates: its search stops, its requests go, its match ends.
    private func suspend(_ profile: MatesProfile) async throws {
        let user = profile.id
        let now = self.now
        let matchID = profile.matchID
        let suspended = try await store.transaction { store in
            guard try await store.suspend(user, at: now) else { return false }
            if let matchID {
                _ = try await store.endMatch(matchID, by: user, reason: "suspended", at: now)
                try await store.leaveMatch(matchID)
            }
            try await store.dropRequests(involving: [user])
            return true
        }
        guard suspended else { return }
        if let matchID { await publishChat(ChatEvent.ended(reason: "suspended", by: user), match: matchID) }
        // Its chat sockets close on every instance, the apps' Socket.IO bindings too.
        await events.announceSessionEnd(.feature(MatesService.socketFeature, account: user))
    }

    /// An admin lifts a suspension; reports before now stop counting.
    func liftSuspension(of user: UUID, by admin: UUID, reason: String = "") async throws -> MatesProfile {
        let now = now
        // The lift and its audit entry are one transaction: neither is kept without the other.
        return try await store.transaction { store in
            guard let profile = try await store.liftSuspension(user, at: now) else { throw AppError.notFound("user_not_found") }
            try await AuditLog(database: store.database).record(suspensionDecision(of: user, lift: true, reason: reason, by: admin))
            return profile
        }
    }

    /// The audit log's entry of an operator's decision on a suspension.
    func suspensionDecision(of user: UUID, lift: Bool, reason: String, by admin: UUID) -> AuditEntry {
        AuditEntry(actorID: admin, action: lift ? "mates.suspension.lift" : "mates.suspension.keep", subjectType: "mates_profile", subjectID: user.uuidString,
                   before: ["suspended": "true"], after: ["suspended": String(!lift), "reason": reason], at: now)
    }
}

extension MatesService {
    /// Runs the transaction; an `AcceptFailed` inside it rolls back and comes out as the user it named.
    fileprivate func acceptTransaction(_ work: @escaping @Sendable (MatesStore) async throws -> Void) async throws -> UUID? {
        do {
            try await store.transaction { try await work($0) }
            return nil
        } catch let failed as AcceptFailed {
            return failed.user
        }
    }
}
