import Accounts
package import Fluent
import Messaging
package import Notifications
package import Platform
import SQLKit
package import Vapor

/// Every rule of mates that touches storage: verification, profiles, the queue and matches,
/// reviews and reports, chat, the cosmetic shop. Handlers stay thin over this.
package struct MatesService {
    static let codeLifetime: TimeInterval = 5 * 60
    static let codeAttempts = 5
    static let resendInterval: TimeInterval = 60
    static let sendsPerDay = 5
    /// A search nobody renewed for this long is stopped (people forget to stop).
    static let searchLifetime: TimeInterval = 6 * 3600
    /// The `feature` label of mates' live sockets (the chat, the apps' Socket.IO): a suspension
    /// closes the account's sockets of it (`SessionEnd.feature`).
    package static let socketFeature = "mates"

    /// Made when first used: a request answered from memory (the gate, one's own profile) never
    /// asks the pool for a database (5 % of such an answer).
    private let databaseSource: @Sendable () -> any Database
    package var database: any Database { databaseSource() }
    package let application: Application
    package var now: Date { application.matesEnvironment.clock() }

    package init(database: any Database, application: Application) {
        self.databaseSource = { database }
        self.application = application
    }

    package init(request: Request) {
        self.databaseSource = { request.db }
        self.application = request.application
    }

    package var events: any EventBus { application.events }
    package var index: SearchingIndex { application.searchingIndex }
    package var radiusMeters: Double { application.settings.mates.radiusMeters }
    package var inbox: NotificationStore { NotificationStore(database: database, application: application) }
    /// The owner of the profiles' table (and the memories that follow it).
    package var store: MatesStore { MatesStore.sharing(databaseSource, application: application) }

    // MARK: Verification

    /// The limits a code to `destinationHash` for `user` must keep in the codes table: one a minute
    /// and five a day per inbox (`MatesRules.inboxKey`) and per account. The client's network and
    /// the whole service have budgets of their own (`CodeBudgets`).
    func sendLimits(destinationHash: String, user: UUID) -> [MatesStore.CodeSendLimit] {
        [.destination(destinationHash), .account(user)].flatMap { counted in
            [MatesStore.CodeSendLimit(counted: counted, window: Self.resendInterval, limit: 1, code: "code_resend_too_soon"),
             MatesStore.CodeSendLimit(counted: counted, window: 24 * 3600, limit: Self.sendsPerDay, code: "code_daily_limit")]
        }
    }

    /// What a destination is held and counted by: the hash of its channel and its inbox.
    package static func destinationHash(_ destination: String, channel: VerificationChannel) -> String {
        SecureRandom.sha256Hex(channel.rawValue + ":" + MatesRules.inboxKey(destination, channel: channel))
    }

    /// Sends a new code within `sendLimits`, the client network's budgets and the channel's hourly
    /// budget. The network and channel slots are taken first (and given back when the code is not
    /// sent); the table's limits are checked by the statement that writes the code, so parallel
    /// sends cannot all pass a count made before any of them was written (on PostgreSQL under
    /// advisory locks of the destination and the account as well, since each statement there sees
    /// only what was committed before it began). Every refusal says when to try again. Returns
    /// where it went, masked.
    func sendCode(channel: VerificationChannel, to rawDestination: String, user: UUID, client: ClientNetwork, language: Language,
                  translate: (String, [String: String]) -> String) async throws -> (masked: String, expiresAt: Date) {
        let destination: String
        do { destination = try MatesRules.normalizedDestination(rawDestination, channel: channel) } catch { throw Self.appError(error) }
        if channel == .phone, !application.settings.mates.offersPhoneCodes { throw AppError.invalid("phone_channel_unavailable") }
        if channel == .email, !application.settings.mates.offersEmailCodes { throw AppError.invalid("email_channel_unavailable") }
        if channel == .phone, !MatesRules.phoneIsIn(application.settings.mates.phoneCountries, destination) {
            throw AppError.invalid("phone_country_unsupported")
        }
        let destinationHash = Self.destinationHash(destination, channel: channel)
        let now = self.now
        if let holder = try await store.holder(ofDestination: destinationHash), holder != user {
            throw AppError.conflict("destination_in_use")
        }
        let slots = try await application.codeBudgets.reserve(channel: channel, client: client, logger: application.logger)
        let issued: MatesStore.CodeRow?
        do {
            issued = try await issueCode(.verification, channel: channel, to: destination, destinationHash: destinationHash, user: user,
                                         clientKey: client.key, now: now) { code, minutes in
                (translate("mates.code.text", ["code": code, "minutes": minutes]), translate("mates.code.subject", [:]))
            }
        } catch {
            await slots.release()
            throw error
        }
        guard let issued else {
            await slots.release()
            throw try await sendLimitError(sendLimits(destinationHash: destinationHash, user: user), now: now)
        }
        return (issued.masked, issued.expiresAt)
    }

    /// Writes a new code for `purpose` within `sendLimits` and hands it to the channel's sender
    /// (`wording` gives the message's text and subject for the code and its minutes). The code's
    /// row, or nil when a limit stopped it; one that could not be delivered is removed (it must
    /// not count or be confirmable) and is 503 `code_not_sent`.
    func issueCode(_ purpose: MatesStore.CodePurpose, channel: VerificationChannel, to destination: String, destinationHash: String,
                   user: UUID, clientKey: String, now: Date,
                   wording: (_ code: String, _ minutes: String) -> (text: String, subject: String)) async throws -> MatesStore.CodeRow? {
        var generator = SystemRandomNumberGenerator()
        let code = String(format: "%06d", Int.random(in: 0...999_999, using: &generator))
        let row = MatesStore.CodeRow(
            id: UUID(), userID: user, channel: channel.rawValue, purpose: purpose, destinationHash: destinationHash,
            masked: MatesRules.masked(destination, channel: channel), clientAddress: clientKey,
            codeHash: SecureRandom.sha256Hex(destinationHash + ":" + code), attempts: 0,
            expiresAt: now.addingTimeInterval(Self.codeLifetime), usedAt: nil, createdAt: now)
        guard try await store.insertCode(row, within: sendLimits(destinationHash: destinationHash, user: user), now: now) else { return nil }
        let words = wording(code, String(Int(Self.codeLifetime / 60)))
        let message = OneTimeCode(channel: channel == .phone ? .phone : .email, destination: destination, code: code,
                                  text: words.text, subject: words.subject)
        do {
            try await application.codeSender.send(message)
        } catch {
            try await store.deleteCode(row.id)
            application.logger.warning("a one-time code was not delivered: \(error)")
            throw AppError(.serviceUnavailable, "code_not_sent")
        }
        return row
    }

    /// The limit that stopped a code, with when to try again (429, `Retry-After` and the wait in
    /// the message): the longest wait of the limits reached.
    private func sendLimitError(_ limits: [MatesStore.CodeSendLimit], now: Date) async throws -> AppError {
        let reached = try await store.longestWait(of: limits, now: now)
        let (code, wait) = reached.map { ($0.limit.code, $0.seconds) } ?? ("code_resend_too_soon", Int(Self.resendInterval))
        return AppError(.tooManyRequests, code,
                        arguments: ["seconds": String(wait), "minutes": String((wait + 59) / 60), "hours": String((wait + 3599) / 3600)],
                        headers: ["Retry-After": String(wait)])
    }

    /// Checks a code against the newest one sent to this destination for this account. Five
    /// wrong tries end it. A right one verifies the account for mates (its profile is made then).
    func confirmCode(channel: VerificationChannel, destination rawDestination: String, code rawCode: String, user: UUID) async throws -> MatesProfile {
        let destination: String, code: String
        do {
            destination = try MatesRules.normalizedDestination(rawDestination, channel: channel)
            code = try MatesRules.normalizedCode(rawCode)
        } catch { throw Self.appError(error) }
        let destinationHash = Self.destinationHash(destination, channel: channel)
        guard let row = try await store.newestCode(for: user, destinationHash: destinationHash, purpose: .verification), row.usedAt == nil, row.expiresAt > now
        else { throw AppError.invalid("code_expired") }
        guard row.attempts < Self.codeAttempts else { throw AppError.invalid("code_expired") }
        guard SecureRandom.constantTimeEquals(SecureRandom.sha256Hex(destinationHash + ":" + code), row.codeHash) else {
            let used = try await store.countWrongTry(row.id, maximum: Self.codeAttempts) ?? Self.codeAttempts
            guard used < Self.codeAttempts else { throw AppError.invalid("code_expired") }
            throw AppError.invalid("code_wrong", ["remaining": String(Self.codeAttempts - used)])
        }
        guard try await store.takeCode(row.id, at: now) else { throw AppError.invalid("code_expired") }
        return try await store.markVerified(user, channel: channel, destinationHash: destinationHash, masked: row.masked)
    }

    // MARK: Profile

    /// That the caller verified, is not suspended, and the few fields `/nearby` needs, for the
    /// apps' search and the start page (`MatesStore.record`, from memory); 403
    /// `verification_required` for an account that has not verified.
    package func standing(_ user: UUID) async throws -> MatesStanding {
        try await profileSnapshot(user).standing
    }

    static func searchPosition(state: String, lat: Double?, lon: Double?) -> Coordinate? {
        guard state == MatesState.searching.rawValue, let lat, let lon else { return nil }
        return Coordinate(unchecked: lat, lon)
    }

    /// What the person's own pages show of their profile (`MatesStore.record`, from memory); 403
    /// `verification_required` for an account that has not verified. The gate of every mates
    /// route reads it (its `standing` is what the gate checks), and the handler takes it from the
    /// request (`req.matesSnapshot()`).
    package func profileSnapshot(_ user: UUID) async throws -> MatesProfileSnapshot {
        guard let snapshot = try await store.snapshot(user) else { throw AppError(.forbidden, "verification_required") }
        return snapshot
    }

    /// The profile of a verified account, or 403 `verification_required`.
    func verifiedProfile(_ user: UUID) async throws -> MatesProfile {
        guard let profile = try await store.model(user) else { throw AppError(.forbidden, "verification_required") }
        return profile
    }

    package struct ProfileChange {
        package var gender: MatesGender?
        package var birthYear: Int?
        package var topics: [String]?
        package var searchable: Bool?
        package var ageMin: Int?
        package var ageMax: Int?

        package init(gender: MatesGender? = nil, birthYear: Int? = nil, topics: [String]? = nil,
                     searchable: Bool? = nil, ageMin: Int? = nil, ageMax: Int? = nil) {
            self.gender = gender
            self.birthYear = birthYear
            self.topics = topics
            self.searchable = searchable
            self.ageMin = ageMin
            self.ageMax = ageMax
        }
    }

    func updateProfile(_ profile: MatesProfile, _ change: ProfileChange) async throws -> MatesProfile {
        try await saveProfileChange(profile, change, in: store)
    }

    /// Checks and saves a change of `user`'s profile through `store` (a caller's
    /// `MatesStore.transaction` may hold more; the change is announced once it committed); 403
    /// `verification_required` for an account that has not verified.
    package func saveProfileChange(of user: UUID, _ change: ProfileChange, in store: MatesStore) async throws {
        guard let profile = try await store.model(user) else { throw AppError(.forbidden, "verification_required") }
        try await saveProfileChange(profile, change, in: store)
    }

    /// Checks and saves a change through `store`.
    /// Checks and saves a change through `store`, writing only the fields it changes; the profile
    /// as changed.
    @discardableResult
    func saveProfileChange(_ profile: MatesProfile, _ change: ProfileChange, in store: MatesStore) async throws -> MatesProfile {
        var profile = profile
        var columns: [MatesStore.ProfileColumn] = []
        do {
            if let year = change.birthYear { try MatesRules.checkBirthYear(year, now: now) }
            try MatesRules.checkAgeRange(min: change.ageMin ?? profile.ageMin, max: change.ageMax ?? profile.ageMax)
            if let topics = change.topics {
                profile.topicsJSON = MatesProfile.encodeList(try MatesRules.normalizedTopics(topics))
                columns.append(.topicsJSON)
            }
        } catch { throw Self.appError(error) }
        if let gender = change.gender { (profile.gender, columns) = (gender.rawValue, columns + [.gender]) }
        if let year = change.birthYear { (profile.birthYear, columns) = (year, columns + [.birthYear]) }
        if let searchable = change.searchable { (profile.searchable, columns) = (searchable, columns + [.searchable]) }
        if let ageMin = change.ageMin { (profile.ageMin, columns) = (ageMin, columns + [.ageMin]) }
        if let ageMax = change.ageMax { (profile.ageMax, columns) = (ageMax, columns + [.ageMax]) }
        try await store.save(profile, columns: columns)
        return profile
    }

    /// How many reports against `user` count toward a suspension (those since an admin last lifted one).
    package func countedReports(of user: UUID) async throws -> Int {
        try await store.countReports(of: user, since: try await profileSnapshot(user).reportsClearedAt)
    }

    /// The comments people left in reviews of this person, newest first, at most 20. Every mates
    /// page and profile answer shows one's own, and they change only when someone reviews this
    /// person (or an account is deleted): remembered (`receivedCommentsMemory`) until then.
    package func receivedComments(_ user: UUID) async throws -> [String] {
        try await application.receivedCommentsMemory.value(for: user) {
            try await readReceivedComments(of: [user])[user] ?? []
        }
    }

    /// The same for several people at once (the apps' search shows a hundred): those remembered,
    /// and the rest in one statement.
    package func receivedComments(of users: [UUID]) async throws -> [UUID: [String]] {
        try await application.receivedCommentsMemory.values(for: users) { missing in
            let read = try await readReceivedComments(of: missing)
            return Dictionary(uniqueKeysWithValues: missing.map { ($0, read[$0] ?? []) })
        }
    }

    /// Reads the comments of these people, at most `limit` each.
    private func readReceivedComments(of users: [UUID], limit: Int = 20) async throws -> [UUID: [String]] {
        try await store.receivedComments(of: users, limit: limit)
    }

    // MARK: The searching index

    package func loadedIndex() async throws -> SearchingIndex {
        try await index.ensureLoaded(from: store)
        return index
    }

    // MARK: Errors

    package static func appError(_ problem: any Error) -> AppError {
        if let appError = problem as? AppError { return appError }
        if problem is GeoProblem { return .invalid("invalid_coordinate") }
        guard let problem = problem as? MatesProblem else { return AppError.badRequest("malformed_body") }
        switch problem {
        case .invalidGender: return .invalid("invalid_gender")
        case .invalidBirthYear: return .invalid("invalid_birth_year")
        case .invalidAgeRange: return .invalid("invalid_age_range", ["min": String(MatesRules.ages.lowerBound), "max": String(MatesRules.ages.upperBound)])
        case .tooManyTopics: return .invalid("too_many_topics", ["max": String(MatesRules.maxTopics)])
        case .invalidTopic: return .invalid("invalid_topic", ["max": String(MatesRules.maxTopicCharacters)])
        case .invalidDestination: return .invalid("invalid_destination")
        case .invalidCode: return .invalid("invalid_code")
        case .invalidReputation: return .invalid("invalid_reputation", ["count": String(ReputationCategory.allCases.count)])
        case .invalidComment: return .invalid("invalid_mates_comment", ["max": String(MatesRules.maxReviewComment)])
        case .invalidReportCategories: return .invalid("invalid_report_categories")
        case .invalidMessage: return .invalid("invalid_message", ["max": String(MatesRules.maxMessageCharacters)])
        }
    }
}

extension Request {
    package var mates: MatesService { MatesService(request: self) }
}
