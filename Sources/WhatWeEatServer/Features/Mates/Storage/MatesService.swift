import Fluent
import SQLKit
import Vapor

/// Every rule of mates that touches storage: verification, profiles, the queue and matches,
/// reviews and reports, chat, the cosmetic shop. Handlers stay thin over this.
struct MatesService {
    static let codeLifetime: TimeInterval = 5 * 60
    static let codeAttempts = 5
    static let resendInterval: TimeInterval = 60
    static let sendsPerDay = 5
    /// A search nobody renewed for this long is stopped (people forget to stop).
    static let searchLifetime: TimeInterval = 6 * 3600

    let database: any Database
    let application: Application
    var now: Date { Date() }

    init(database: any Database, application: Application) {
        self.database = database
        self.application = application
    }

    init(request: Request) {
        self.init(database: request.db, application: request.application)
    }

    var events: any EventBus { application.events }
    var index: SearchingIndex { application.searchingIndex }
    var radiusMeters: Double { application.settings.mates.radiusMeters }
    var inbox: NotificationInbox { NotificationInbox(database: database, events: events) }

    // MARK: Verification

    /// Sends a new code, within the limits: one a minute and five a day, both per destination
    /// and per client address. The limits are checked by the statement that writes the code, so
    /// parallel sends cannot all pass a count made before any of them was written (on PostgreSQL
    /// under advisory locks of the destination and the address as well, since each statement
    /// there sees only what was committed before it began). Returns where it went, masked.
    func sendCode(channel: VerificationChannel, to rawDestination: String, user: UUID, clientAddress: String, language: Language,
                  translate: (String, [String: String]) -> String) async throws -> (masked: String, expiresAt: Date) {
        let destination: String
        do { destination = try MatesRules.normalizedDestination(rawDestination, channel: channel) } catch { throw Self.appError(error) }
        let destinationHash = SecureRandom.sha256Hex(channel.rawValue + ":" + destination)
        let now = self.now
        if let holder = try await MatesProfile.query(on: database).filter(\.$verifiedDestinationHash == destinationHash).first(), holder.id != user {
            throw AppError.conflict("destination_in_use")
        }
        var generator = SystemRandomNumberGenerator()
        let code = String(format: "%06d", Int.random(in: 0...999_999, using: &generator))
        let rowID = UUID()
        let row = MatesVerificationCode()
        row.id = rowID
        row.userID = user
        row.channel = channel.rawValue
        row.destinationHash = destinationHash
        row.masked = MatesRules.masked(destination, channel: channel)
        row.clientAddress = clientAddress
        row.codeHash = SecureRandom.sha256Hex(destinationHash + ":" + code)
        row.attempts = 0
        row.expiresAt = now.addingTimeInterval(Self.codeLifetime)
        row.createdAt = now
        let limited = [("destination_hash", destinationHash), ("client_address", clientAddress)]
        guard try await insertWithinSendLimits(row, limitedBy: limited, now: now) else {
            throw try await sendLimitError(limitedBy: limited, now: now)
        }
        let message = OneTimeCode(
            channel: channel == .phone ? .phone : .email, destination: destination, code: code,
            text: translate("mates.code.text", ["code": code, "minutes": String(Int(Self.codeLifetime / 60))]),
            subject: translate("mates.code.subject", [:]))
        do {
            try await application.codeSender.send(message)
        } catch {
            // Not delivered: the code must not count against the limits or be confirmable.
            try await MatesVerificationCode.query(on: database).filter(\.$id == rowID).delete()
            application.logger.warning("a one-time code was not delivered: \(error)")
            throw AppError(.serviceUnavailable, "code_not_sent")
        }
        return (row.masked, row.expiresAt)
    }

    /// Writes `row` if no code went to any of `limitedBy` (column, value) in the last minute and
    /// fewer than `sendsPerDay` in the last day, in one statement; false when a limit stopped it.
    private func insertWithinSendLimits(_ row: MatesVerificationCode, limitedBy limited: [(String, String)], now: Date) async throws -> Bool {
        let table = MatesVerificationCode.schema
        let dayAgo = now.addingTimeInterval(-24 * 3600), minuteAgo = now.addingTimeInterval(-Self.resendInterval)
        return try await database.transaction { transaction in
            let sql = transaction.sql
            if sql.dialect.name == "postgresql" {
                // Always in the same order, so two sends cannot wait for each other's lock.
                for (column, value) in limited.sorted(by: { $0.0 < $1.0 }) {
                    try await sql.raw("SELECT pg_advisory_xact_lock(hashtext(\(bind: "mates_code|\(column)|\(value)")))").run()
                }
            }
            var conditions: [SQLQueryString] = []
            for (column, value) in limited {
                conditions.append("""
                    (SELECT COUNT(*) FROM \(ident: table) WHERE \(ident: column) = \(bind: value) AND created_at > \(bind: dayAgo)) < \(literal: Self.sendsPerDay)
                    AND NOT EXISTS (SELECT 1 FROM \(ident: table) WHERE \(ident: column) = \(bind: value) AND created_at > \(bind: minuteAgo))
                    """)
            }
            let inserted = try await sql.raw("""
                INSERT INTO \(ident: table) (id, user_id, channel, destination_hash, masked, client_address, code_hash, attempts, expires_at, created_at)
                SELECT \(bind: row.id ?? UUID()), \(bind: row.userID), \(bind: row.channel), \(bind: row.destinationHash), \(bind: row.masked),
                    \(bind: row.clientAddress), \(bind: row.codeHash), \(literal: 0), \(bind: row.expiresAt), \(bind: row.createdAt)
                WHERE \(conditions.joined(separator: " AND "))
                RETURNING id
                """).all()
            return !inserted.isEmpty
        }
    }

    /// Which send limit stopped a code, with when to try again (429 and `Retry-After`).
    private func sendLimitError(limitedBy limited: [(String, String)], now: Date) async throws -> AppError {
        var wait = 1
        for (column, value) in limited {
            let recent = try await database.sql.select().column(SQLFunction("MAX", args: SQLColumn("created_at")), as: "last")
                .column(SQLFunction("MIN", args: SQLColumn("created_at")), as: "first")
                .column(SQLFunction("COUNT", args: SQLLiteral.all), as: "sends")
                .from(MatesVerificationCode.schema)
                .where(SQLColumn(column), .equal, SQLBind(value))
                .where(SQLColumn("created_at"), .greaterThan, SQLBind(now.addingTimeInterval(-24 * 3600)))
                .first()
            if try (recent?.decode(column: "sends", as: Int.self) ?? 0) >= Self.sendsPerDay {
                let first = try recent?.decode(column: "first", as: Date?.self) ?? now
                let seconds = max(1, Int(first.addingTimeInterval(24 * 3600).timeIntervalSince(now).rounded(.up)))
                return AppError(.tooManyRequests, "code_daily_limit", headers: ["Retry-After": String(seconds)])
            }
            if let last = try recent?.decode(column: "last", as: Date?.self), now.timeIntervalSince(last) < Self.resendInterval {
                wait = max(wait, Int((Self.resendInterval - now.timeIntervalSince(last)).rounded(.up)))
            }
        }
        return AppError(.tooManyRequests, "code_resend_too_soon", arguments: ["seconds": String(wait)], headers: ["Retry-After": String(wait)])
    }

    /// Checks a code against the newest one sent to this destination for this account. Five
    /// wrong tries end it. A right one verifies the account for mates (its profile is made then).
    func confirmCode(channel: VerificationChannel, destination rawDestination: String, code rawCode: String, user: UUID) async throws -> MatesProfile {
        let destination: String, code: String
        do {
            destination = try MatesRules.normalizedDestination(rawDestination, channel: channel)
            code = try MatesRules.normalizedCode(rawCode)
        } catch { throw Self.appError(error) }
        let destinationHash = SecureRandom.sha256Hex(channel.rawValue + ":" + destination)
        guard let row = try await MatesVerificationCode.query(on: database).filter(\.$userID == user)
            .filter(\.$destinationHash == destinationHash).sort(\.$createdAt, .descending).first(),
            row.usedAt == nil, row.expiresAt > now
        else { throw AppError.invalid("code_expired") }
        guard row.attempts < Self.codeAttempts else { throw AppError.invalid("code_expired") }
        guard SecureRandom.constantTimeEquals(SecureRandom.sha256Hex(destinationHash + ":" + code), row.codeHash) else {
            // Counted with a conditional update, so parallel guesses cannot share one try.
            let counted = try await database.sql.update(MatesVerificationCode.schema).set("attempts", to: SQLRaw("attempts + 1"))
                .where("id", .equal, SQLBind(try row.requireID())).where("attempts", .lessThan, SQLBind(Self.codeAttempts))
                .returning("attempts").all()
            let used = try counted.first?.decode(column: "attempts", as: Int.self) ?? Self.codeAttempts
            guard used < Self.codeAttempts else { throw AppError.invalid("code_expired") }
            throw AppError.invalid("code_wrong", ["remaining": String(Self.codeAttempts - used)])
        }
        let taken = try await database.sql.update(MatesVerificationCode.schema).set("used_at", to: SQLBind(now))
            .where("id", .equal, SQLBind(try row.requireID())).where("used_at", .is, SQLLiteral.null).returning("id").all()
        guard !taken.isEmpty else { throw AppError.invalid("code_expired") }
        return try await markVerified(user: user, channel: channel, destinationHash: destinationHash, masked: row.masked)
    }

    private func markVerified(user: UUID, channel: VerificationChannel, destinationHash: String, masked: String) async throws -> MatesProfile {
        let profile = try await MatesProfile.find(user, on: database) ?? Self.newProfile(user)
        profile.verifiedChannel = channel.rawValue
        profile.verifiedDestinationHash = destinationHash
        profile.verifiedMasked = masked
        do {
            try await profile.save(on: database)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("destination_in_use")
        }
        return profile
    }

    static func newProfile(_ user: UUID) -> MatesProfile {
        let profile = MatesProfile()
        profile.id = user
        profile.gender = MatesGender.unspecified.rawValue
        profile.topicsJSON = "[]"
        profile.searchable = true
        profile.ageMin = MatesRules.defaultAgeRange.lowerBound
        profile.ageMax = MatesRules.defaultAgeRange.upperBound
        profile.avatar = 0
        profile.background = 0
        (profile.rep0, profile.rep1, profile.rep2, profile.rep3, profile.rep4, profile.rep5) = (0, 0, 0, 0, 0, 0)
        profile.state = MatesState.idle.rawValue
        return profile
    }

    // MARK: Profile

    /// What the gate of every mates route reads: that the caller verified, is not suspended, and
    /// the few fields `/nearby` needs. One statement written out (building a Fluent model of the
    /// whole profile cost a fifth of a `/nearby`).
    func standing(_ user: UUID) async throws -> MatesStanding {
        let query: SQLQueryString = "SELECT birth_year, age_min, age_max, suspended_at, state, lat, lon FROM \(ident: MatesProfile.schema) WHERE id = \(bind: user)"
        guard let row = try await database.sql.raw(query).first() else { throw AppError(.forbidden, "verification_required") }
        return MatesStanding(id: user, birthYear: try row.decode(column: "birth_year", as: Int?.self),
                             ageMin: try row.decode(column: "age_min", as: Int.self), ageMax: try row.decode(column: "age_max", as: Int.self),
                             suspended: try row.decode(column: "suspended_at", as: Date?.self) != nil,
                             searchPosition: try Self.searchPosition(state: row.decode(column: "state", as: String.self),
                                                                     lat: row.decode(column: "lat", as: Double?.self), lon: row.decode(column: "lon", as: Double?.self)))
    }

    static func searchPosition(state: String, lat: Double?, lon: Double?) -> Coordinate? {
        guard state == MatesState.searching.rawValue, let lat, let lon else { return nil }
        return Coordinate(unchecked: lat, lon)
    }

    /// The profile of a verified account, or 403 `verification_required`.
    func verifiedProfile(_ user: UUID) async throws -> MatesProfile {
        guard let profile = try await MatesProfile.find(user, on: database) else { throw AppError(.forbidden, "verification_required") }
        return profile
    }

    struct ProfileChange {
        var gender: MatesGender?
        var birthYear: Int?
        var topics: [String]?
        var searchable: Bool?
        var ageMin: Int?
        var ageMax: Int?
    }

    func updateProfile(_ profile: MatesProfile, _ change: ProfileChange) async throws -> MatesProfile {
        do {
            if let year = change.birthYear { try MatesRules.checkBirthYear(year, now: now) }
            try MatesRules.checkAgeRange(min: change.ageMin ?? profile.ageMin, max: change.ageMax ?? profile.ageMax)
            if let topics = change.topics { profile.topicsJSON = MatesProfile.encodeList(try MatesRules.normalizedTopics(topics)) }
        } catch { throw Self.appError(error) }
        if let gender = change.gender { profile.gender = gender.rawValue }
        if let year = change.birthYear { profile.birthYear = year }
        if let searchable = change.searchable { profile.searchable = searchable }
        if let ageMin = change.ageMin { profile.ageMin = ageMin }
        if let ageMax = change.ageMax { profile.ageMax = ageMax }
        try await profile.save(on: database)
        try await searchingChanged(try profile.requireID())
        return profile
    }

    /// The comments people left in reviews of this person, newest first.
    func receivedComments(_ user: UUID, limit: Int = 20) async throws -> [String] {
        try await MatesReview.query(on: database).filter(\.$revieweeID == user).filter(\.$comment != "")
            .sort(\.$createdAt, .descending).limit(limit).all().map(\.comment)
    }

    /// The same for several people at once, at most `limit` each.
    func receivedComments(of users: [UUID], limit: Int = 20) async throws -> [UUID: [String]] {
        guard !users.isEmpty else { return [:] }
        var comments: [UUID: [String]] = [:]
        let rows = try await MatesReview.query(on: database).filter(\.$revieweeID ~~ Array(Set(users))).filter(\.$comment != "")
            .sort(\.$createdAt, .descending).limit(users.count * limit).all()
        for row in rows where comments[row.revieweeID, default: []].count < limit { comments[row.revieweeID, default: []].append(row.comment) }
        return comments
    }

    // MARK: Keeping the index current

    /// A person's queue state or profile changed: refresh them here and on the other instances.
    func searchingChanged(_ users: UUID...) async throws {
        for user in users {
            if index.isLoaded { try await index.refresh(user, from: database) }
            await events.publish(user.uuidString, to: SearchingIndex.topic)
        }
    }

    func loadedIndex() async throws -> SearchingIndex {
        try await index.ensureLoaded(from: database)
        return index
    }

    // MARK: Errors

    static func appError(_ problem: any Error) -> AppError {
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
    var mates: MatesService { MatesService(request: self) }
}
