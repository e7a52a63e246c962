package import Fluent
package import Platform
import SQLKit
import Vapor

/// Every write to `mates_profiles`. Each one announces the people it changed (`announce`).
extension MatesStore {
    private var profiles: String { MatesProfile.schema }

    /// Writes `columns` of a profile read and changed by its caller, and no other column (the
    /// state, the queue and the counters are moved by other statements meanwhile). 409
    /// `destination_in_use` when its verified destination belongs to another account.
    func save(_ profile: MatesProfile, columns: [Column]) async throws {
        do {
            try await sql.update(profile, in: profiles, id: profile.id, keeping: Column.allCases.filter { !columns.contains($0) }.map(\.stringValue),
                                 stamping: [Column.updatedAt.stringValue: environment.now().wholeMicroseconds])
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("destination_in_use")
        }
        await announce([profile.id])
    }

    /// Writes a new profile. 409 `destination_in_use` as `save`.
    private func insert(_ profile: MatesProfile) async throws {
        let now = environment.now().wholeMicroseconds
        var row = profile
        (row.createdAt, row.updatedAt) = (now, now)
        do {
            try await sql.insert(row, into: profiles)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("destination_in_use")
        }
        await announce([profile.id])
    }

    /// Verifies the account for mates with this destination (its profile is made then).
    func markVerified(_ user: UUID, channel: VerificationChannel, destinationHash: String, masked: String) async throws -> MatesProfile {
        guard var profile = try await model(user) else {
            let profile = MatesProfile(newFor: user, channel: channel, destinationHash: destinationHash, masked: masked)
            try await insert(profile)
            return profile
        }
        profile.verifiedChannel = channel.rawValue
        profile.verifiedDestinationHash = destinationHash
        profile.verifiedMasked = masked
        try await save(profile, columns: [.verifiedChannel, .verifiedDestinationHash, .verifiedMasked])
        return profile
    }

    /// A profile verified by a phone sign-in elsewhere (a 새싹 스터디 app's Firebase ID token), with
    /// the gender and birth year that app sent. Inside a caller's `transaction`, it is announced
    /// once that committed.
    package func createVerified(_ user: UUID, channel: VerificationChannel, destinationHash: String, masked: String,
                                gender: MatesGender, birthYear: Int) async throws {
        var profile = MatesProfile(newFor: user, channel: channel, destinationHash: destinationHash, masked: masked)
        profile.gender = gender.rawValue
        profile.birthYear = birthYear
        try await insert(profile)
    }

    /// Fills in a gender and birth year the profile lacks (an app signing up to an account the
    /// web verified first keeps what the web set). Nothing without a profile.
    package func fillIn(_ user: UUID, gender: MatesGender, birthYear: Int) async throws {
        guard var profile = try await model(user) else { return }
        if profile.birthYear == nil { profile.birthYear = birthYear }
        if MatesGender(rawValue: profile.gender) == .unspecified { profile.gender = gender.rawValue }
        try await save(profile, columns: [.birthYear, .gender])
    }

    /// Starts or moves a search; false when the person is matched (nothing changed).
    package func startSearching(_ user: UUID, at point: Coordinate, topics: [String], now: Date) async throws -> Bool {
        let moved = try await sql.update(profiles)
            .set(Column.state, to: SQLBind(MatesState.searching.rawValue))
            .set(Column.lat, to: SQLBind(point.lat)).set(Column.lon, to: SQLBind(point.lon))
            .set(Column.queueTopicsJSON, to: SQLBind(MatesProfile.encodeList(topics))).set(Column.queuedAt, to: SQLBind(now))
            .where(Column.id, .equal, SQLBind(user)).where(Column.state, .notEqual, SQLBind(MatesState.matched.rawValue))
            .returning(Column.id).all()
        guard !moved.isEmpty else { return false }
        await announce([user])
        return true
    }

    /// Stops a search (back to idle); false when the person is matched (nothing changed).
    package func stopSearching(_ user: UUID) async throws -> Bool {
        let stopped = try await sql.update(profiles)
            .set(Column.state, to: SQLBind(MatesState.idle.rawValue)).set(Column.queuedAt, to: SQLLiteral.null)
            .where(Column.id, .equal, SQLBind(user)).where(Column.state, .notEqual, SQLBind(MatesState.matched.rawValue))
            .returning(Column.id).all()
        guard !stopped.isEmpty else { return false }
        await announce([user])
        return true
    }

    /// Stops every search last renewed before `cutoff`; who was stopped.
    func stopSearches(renewedBefore cutoff: Date) async throws -> [UUID] {
        let expired = try await sql.update(profiles)
            .set(Column.state, to: SQLBind(MatesState.idle.rawValue)).set(Column.queuedAt, to: SQLLiteral.null)
            .where(Column.state, .equal, SQLBind(MatesState.searching.rawValue))
            .where(Column.queuedAt, .lessThan, SQLBind(cutoff))
            .returning(Column.id).all()
        let users = try expired.map { try $0.decode(column: Column.id, as: UUID.self) }
        await announce(users)
        return users
    }

    /// Moves a searching, unsuspended person into `match`; false when they were not searching.
    func moveToMatch(_ user: UUID, match: UUID) async throws -> Bool {
        let moved = try await sql.update(profiles)
            .set(Column.state, to: SQLBind(MatesState.matched.rawValue)).set(Column.matchID, to: SQLBind(match))
            .set(Column.queuedAt, to: SQLLiteral.null)
            .where(Column.id, .equal, SQLBind(user)).where(Column.state, .equal, SQLBind(MatesState.searching.rawValue))
            .where(Column.suspendedAt, .is, SQLLiteral.null)
            .returning(Column.id).all()
        guard !moved.isEmpty else { return false }
        await announce([user])
        return true
    }

    /// Both people of an ended match back to idle (all but `except`, whose account is going).
    func leaveMatch(_ match: UUID, except: UUID? = nil) async throws {
        let update = sql.update(profiles)
            .set(Column.state, to: SQLBind(MatesState.idle.rawValue)).set(Column.matchID, to: SQLLiteral.null)
            .where(Column.matchID, .equal, SQLBind(match))
        if let except { update.where(Column.id, .notEqual, SQLBind(except)) }
        let left = try await update.returning(Column.id).all()
        await announce(try left.map { try $0.decode(column: Column.id, as: UUID.self) })
    }

    /// Adds one to each picked reputation counter (`ReputationCategory` positions).
    func addReputation(_ user: UUID, picked: [Int]) async throws {
        guard !picked.isEmpty else { return }
        let update = sql.update(profiles).where(Column.id, .equal, SQLBind(user))
        for position in picked {
            let counter = Column.reputation[position]
            update.set(SQLIdentifier(counter), to: SQLBinaryExpression(SQLIdentifier(counter), SQLBinaryOperator.add, SQLLiteral.numeric("1")))
        }
        try await update.run()
        await announce([user])
    }

    /// Suspends from mates (the search stops); false when already suspended.
    func suspend(_ user: UUID, at now: Date) async throws -> Bool {
        let suspended = try await sql.update(profiles).set(Column.suspendedAt, to: SQLBind(now))
            .set(Column.state, to: SQLBind(MatesState.idle.rawValue)).set(Column.queuedAt, to: SQLLiteral.null)
            .where(Column.id, .equal, SQLBind(user)).where(Column.suspendedAt, .is, SQLLiteral.null)
            .returning(Column.id).all()
        guard !suspended.isEmpty else { return false }
        await announce([user])
        return true
    }

    /// An admin lifts a suspension; reports made before `now` stop counting. Nil without a profile.
    func liftSuspension(_ user: UUID, at now: Date) async throws -> MatesProfile? {
        guard var profile = try await model(user) else { return nil }
        profile.suspendedAt = nil
        profile.reportsClearedAt = now
        try await save(profile, columns: [.suspendedAt, .reportsClearedAt])
        return profile
    }

    /// Keeps the person from searching until `until` (a dodge penalty; nil lifts it).
    package func blockSearching(_ user: UUID, until: Date?) async throws {
        try await sql.update(profiles).set(Column.searchBlockedUntil, to: until.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null).where(Column.id, .equal, SQLBind(user)).run()
        await announce([user])
    }
}
