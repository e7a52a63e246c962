import Accounts
import Fluent
import Mates
import Platform
import SocketIO
import SQLKit
import Vapor

/// What a 새싹 스터디 app sends at sign-up (`POST /v1/user`).
struct AppSignUp: Sendable {
    let phoneNumber: String
    let fcmToken: String
    let nickname: String
    let birth: Date
    let email: String
    let gender: MatesGender
}

/// Where an app user stands as `GET /v1/queue/myQueueState` tells it: searching (`matched` false),
/// matched, or a match the partner ended (dodged or reviewed) that this user has not moved past.
/// Nil is the normal state (201).
struct AppQueueState: Sendable {
    let matched: Bool
    let dodged: Bool
    let reviewed: Bool
    let partner: UUID?
    let partnerNickname: String?
    /// The match the state is about (open, or ended by the partner).
    let matchID: UUID?
}

/// Everything the apps' user object shows beyond the profile and the account.
struct AppUserRecord: Sendable {
    let appUser: MatesAppUser
    let account: User
    let profile: MatesProfileSnapshot
    let collection: MatesCollection
    let comments: [String]
    let reportedCount: Int
    let reportedUIDs: [String]
    let reviewedUIDs: [String]
    let dodgesToday: Int
    let dodges: Int
    let transactionIDs: [String]
}

/// The 새싹 스터디 apps' rules over mates: their uids and networks, sign-up and withdrawal, their
/// view of the queue and the user object. It calls mates' service and store by account id (never
/// mates' models) and owns the apps' own tables through `AppUserStore`.
struct SesacAppService {
    let mates: MatesService

    var application: Application { mates.application }
    var database: any Database { mates.database }
    var events: any EventBus { mates.events }
    var now: Date { mates.now }
    /// Mates' store (profiles, matches, reviews, purchases), on the same database.
    var store: MatesStore { mates.store }
    /// The store of the apps' own tables, on the same database.
    var appUsers: AppUserStore { AppUserStore(database: database) }

    init(_ mates: MatesService) { self.mates = mates }
    init(database: any Database, application: Application) { self.init(MatesService(database: database, application: application)) }
}

extension Request {
    var sesacApp: SesacAppService { SesacAppService(mates) }
}

extension SesacAppService {
    /// A match ended by the partner stays visible to an app user this long (then it is the normal state).
    static let appSettleWindow: TimeInterval = 7 * 24 * 3600
    /// The networks a uid called `/v1` from are kept this long (then pruned): the chat socket binds
    /// by network only on the latest of them, and only while it is this recent.
    static let appSightingLifetime: TimeInterval = 24 * 3600

    /// Where a uid's sightings are announced (the network), so a socket waiting on that network
    /// binds at the uid's next call from it.
    static func appSightingTopic(_ uid: String) -> String { "mates.sesac.sighting.\(uid)" }

    func appUser(_ uid: String) async throws -> MatesAppUser? {
        try await appUsers.appUser(uid)
    }

    /// The account a signed-up uid belongs to (`AppAccounts`, from memory), or nil.
    func appAccount(uid: String) async throws -> UUID? {
        let accounts = application.appAccounts
        if let known = accounts.account(of: uid) { return known }
        let generation = accounts.generation
        guard let account = try await appUsers.account(ofUID: uid) else { return nil }
        accounts.remember(account, of: uid, readAt: generation)
        return account
    }

    // MARK: Sign-up, withdrawal

    /// Links a Firebase uid to an account: the one that verified this phone number on the web, or a
    /// new one with the app's nickname. The token's phone number is the mates verification.
    func signUpApp(uid: String, projectID: String, verifiedPhone: String?, _ form: AppSignUp, accounts: AccountService) async throws -> MatesAppUser {
        guard try await appUser(uid) == nil else { throw AppError.conflict("app_user_exists") }
        guard let verifiedPhone, let phone = try? MatesRules.normalizedDestination(verifiedPhone, channel: .phone) else {
            throw AppError.invalid("phone_sign_in_required")
        }
        let year = MatesRules.calendarYear(of: form.birth)
        do { try MatesRules.checkBirthYear(year, now: now) } catch { throw MatesService.appError(error) }
        let destinationHash = MatesService.destinationHash(phone, channel: .phone)
        // The sign-up's answer carries the binding cookie (`MatesCompatRoutes.signUp`): handed now.
        var row = MatesAppUser(uid: uid, userID: UUID(), projectID: projectID, phoneNumber: String(form.phoneNumber.prefix(32)),
                               email: String(form.email.prefix(254)), fcmToken: String(form.fcmToken.prefix(4096)), birth: form.birth,
                               study: "", searchable: false, createdAccount: false, settledMatchID: nil, socketCookieHandedAt: now,
                               createdAt: now.wholeMicroseconds)
        if let existing = try await store.holder(ofDestination: destinationHash) {
            // The web verified this number first: the app joins that account, which keeps its nickname.
            row.userID = existing
            let joining = row
            try await store.transaction { store in
                try await store.fillIn(existing, gender: form.gender, birthYear: year)
                try await AppUserStore(database: store.database).create(joining)
            }
            application.appSocketCookies.remember(uid)
            await application.appUIDMemory.forget(row.userID, announcingOn: events)
            return row
        }
        let account: User
        do {
            account = try await accounts.accountWithoutPassword(nickname: form.nickname, emailKey: projectID + ":" + uid)
        } catch let error as AppError where error.code.hasPrefix("invalid_nickname") || error.code == "nickname_taken" {
            throw AppError.invalid("nickname_not_allowed")
        }
        let userID = UUID()
        account.id = userID
        row.userID = userID
        row.createdAccount = true
        let created = row
        let masked = MatesRules.masked(phone, channel: .phone)
        do {
            try await store.transaction { store in
                try await AccountStore(database: store.database, application: application).create(account)
                try await store.createVerified(userID, channel: .phone, destinationHash: destinationHash, masked: masked,
                                               gender: form.gender, birthYear: year)
                try await AppUserStore(database: store.database).create(created)
            }
        } catch let error as any DatabaseError where error.isConstraintFailure {
            // The same uid signing up twice at once, or the nickname taken in between.
            if try await appUser(uid) != nil { throw AppError.conflict("app_user_exists") }
            throw AppError.invalid("nickname_not_allowed")
        }
        application.appSocketCookies.remember(uid)
        await application.appUIDMemory.forget(userID, announcingOn: events)
        return row
    }

    /// `POST /v1/user/withdraw`: an account the app made goes entirely; an account that was there
    /// before (the web's) only forgets the app.
    func withdrawApp(_ appUser: MatesAppUser, accounts: AccountService) async throws {
        let uid = appUser.uid
        try await forgetAppSightings(uid: uid)
        application.appSocketCookies.forget(uid)
        await application.appAccounts.forget(uid, announcingOn: events)
        guard appUser.createdAccount, let account = try await AccountStore(database: database, application: application).user(appUser.userID) else {
            try await appUsers.delete(appUser)
            await application.appUIDMemory.forget(appUser.userID, announcingOn: events)
            // The account stays (the web's): only this uid's sockets end.
            await events.publish(MatesCompatSocket.withdrawnMessage, to: MatesCompatSocket.bindingTopic(uid))
            return
        }
        try await accounts.remove(account)
    }

    // MARK: Who is who

    /// The uid the apps know each account by: its newest app uid, or the account id for people
    /// who use the web pages only. Remembered (`appUIDMemory`: the apps' search names a hundred
    /// people a call) until an app signs up or withdraws for the account.
    func appUIDs(of users: [UUID]) async throws -> [UUID: String] {
        try await application.appUIDMemory.values(for: users) { try await readAppUIDs(of: $0) }
    }

    private func readAppUIDs(of users: [UUID]) async throws -> [UUID: String] {
        var uids = Dictionary(uniqueKeysWithValues: Set(users).map { ($0, $0.uuidString.lowercased()) })
        guard !users.isEmpty else { return uids }
        uids.merge(try await appUsers.newestUIDs(of: users)) { _, newest in newest }
        return uids
    }

    /// The account behind a uid the apps send (an app uid or an account id); nil when none.
    func account(forAppUID uid: String) async throws -> UUID? {
        guard !uid.isEmpty, uid.utf8.count <= 128 else { return nil }
        if let row = try await appUser(uid) { return row.userID }
        guard let id = UUID(uuidString: uid), try await store.exists(id) else { return nil }
        return id
    }

    // MARK: The apps' view of the queue

    func appQueueState(_ appUser: MatesAppUser) async throws -> AppQueueState? {
        let profile = try await mates.profileSnapshot(appUser.userID)
        let me = profile.id
        switch profile.state {
        case .searching:
            return AppQueueState(matched: false, dodged: false, reviewed: false, partner: nil, partnerNickname: nil, matchID: nil)
        case .matched:
            guard let matchID = profile.matchID, let match = try await store.match(matchID) else { return nil }
            let partner = match.partner(of: me)
            return AppQueueState(matched: true, dodged: false, reviewed: false, partner: partner,
                                 partnerNickname: try await AccountStore.person(partner, on: database)?.nickname, matchID: matchID)
        case .idle:
            guard let match = try await unsettledMatch(of: me, appUser) else { return nil }
            let partner = match.partner(of: me)
            return AppQueueState(matched: true, dodged: match.endReason != "finished", reviewed: match.endReason == "finished", partner: partner,
                                 partnerNickname: try await AccountStore.person(partner, on: database)?.nickname, matchID: match.id)
        }
    }

    /// My newest match, when my partner ended it (recently) and I have neither reviewed it nor moved on.
    private func unsettledMatch(of me: UUID, _ appUser: MatesAppUser) async throws -> MatchRow? {
        guard let match = try await store.newestMatch(of: me), let endedAt = match.endedAt, match.endedBy != me,
              match.id != appUser.settledMatchID, now.timeIntervalSince(endedAt) < Self.appSettleWindow,
              try await !mates.hasReviewed(match, by: me) else { return nil }
        return match
    }

    /// `PUT /v1/user/mypage`: the profile's fields and the app's study and searchable flag, in one
    /// transaction (a half-applied save would show one and not the other).
    func updateMyPage(_ appUser: MatesAppUser, _ change: MatesService.ProfileChange, study: String?, searchable: Bool?) async throws {
        let mates = self.mates
        var assignments: [(AppUserStore.UserColumn, any Encodable & Sendable)] = []
        if let study { assignments.append((.study, study)) }
        if let searchable { assignments.append((.searchable, searchable)) }
        let written = assignments
        try await store.transaction { store in
            try await mates.saveProfileChange(of: appUser.userID, change, in: store)
            try await AppUserStore(database: store.database).update(uid: appUser.uid, written)
        }
    }

    /// `PUT /v1/user/update_fcm_token`: where the app's pushes go.
    func setPushToken(_ token: String, of appUser: MatesAppUser) async throws {
        try await appUsers.update(uid: appUser.uid, [(.fcmToken, token)])
    }

    private func settle(_ appUser: MatesAppUser, match: UUID?) async throws {
        guard let match, appUser.settledMatchID != match else { return }
        try await appUsers.update(uid: appUser.uid, [(.settledMatchID, match)])
    }

    /// `POST /v1/queue`: a new search also moves past the last match.
    func appStartSearching(_ appUser: MatesAppUser, at point: Coordinate, topics: [String]) async throws {
        let last = try await store.newestMatch(of: appUser.userID)
        try await mates.startSearching(user: appUser.userID, at: point, topics: topics)
        if last?.endedAt != nil { try await settle(appUser, match: last?.id) }
    }

    /// `POST /v1/queue/dodge`: leaves the match with `other` early (the dodge penalty applies), or,
    /// when `other` already ended it, just moves past it. 409 `wrong_partner` otherwise.
    func appDodge(_ appUser: MatesAppUser, other: UUID) async throws {
        let profile = try await mates.profileSnapshot(appUser.userID)
        let me = profile.id
        if profile.state == .matched, let matchID = profile.matchID, let match = try await store.match(matchID),
           match.partner(of: me) == other {
            _ = try await mates.endMatch(of: me, dodged: true)
            try await settle(appUser, match: matchID)
            return
        }
        guard profile.state == .idle, let match = try await unsettledMatch(of: me, appUser), match.partner(of: me) == other else {
            throw AppError.conflict("wrong_partner")
        }
        try await settle(appUser, match: match.id)
    }

    /// `POST /v1/queue/rate/{other}`: the review that ends the study. A running match with `other`
    /// is finished first; an ended one (within `appSettleWindow`) is reviewed as it is.
    func appReview(_ appUser: MatesAppUser, other: UUID, picks: [Int], comment: String) async throws {
        let profile = try await mates.profileSnapshot(appUser.userID)
        let me = profile.id
        do {
            _ = try MatesRules.checkReputation(picks)
            _ = try MatesRules.checkReviewComment(comment)
        } catch { throw MatesService.appError(error) }
        var target = try await store.newestMatch(of: me, with: other)
        if let match = target, match.endedAt == nil, profile.state == .matched, profile.matchID == match.id {
            target = try await mates.endMatch(of: me, dodged: false)
        }
        guard let match = target, let endedAt = match.endedAt, now.timeIntervalSince(endedAt) < Self.appSettleWindow else {
            throw AppError.conflict("wrong_partner")
        }
        _ = try await mates.review(matchID: match.id, picks: picks, comment: comment, by: me)
        try await settle(appUser, match: match.id)
    }

    /// How many times this person dodged in the last day (the apps' penalty level) and in all.
    func dodgeCounts(_ user: UUID) async throws -> (today: Int, total: Int) {
        let total = try await store.countDodges(by: user, since: nil)
        let today = try await store.countDodges(by: user, since: now.addingTimeInterval(-DodgePenalty.window))
        return (today, total)
    }

    // MARK: The user object

    func appUserRecord(_ appUser: MatesAppUser) async throws -> AppUserRecord {
        let user = appUser.userID
        guard let account = try await AccountStore(database: database, application: application).user(user) else { throw AppError(.notAcceptable, "app_user_unknown") }
        let profile = try await mates.profileSnapshot(user)
        let myReports = try await store.reportedPeople(by: user)
        let myReviews = try await store.reviewees(of: user)
        let uids = try await appUIDs(of: myReports + myReviews)
        let dodges = try await dodgeCounts(user)
        return AppUserRecord(
            appUser: appUser, account: account, profile: profile,
            collection: try await mates.collection(of: user, avatar: profile.avatar, background: profile.background),
            comments: try await mates.receivedComments(user), reportedCount: try await mates.countedReports(of: user),
            reportedUIDs: myReports.compactMap { uids[$0] }, reviewedUIDs: myReviews.compactMap { uids[$0] },
            dodgesToday: min(dodges.today, DodgePenalty.levels), dodges: dodges.total,
            transactionIDs: try await store.purchaseTransactionIDs(of: user))
    }
}
