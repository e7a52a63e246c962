import Accounts
package import Fluent
import NIOConcurrencyHelpers
import Platform
import SQLKit
package import Vapor

/// The one owner of the mates tables (`mates_profiles`, `mates_requests` here; the others in its
/// extensions below): the only code that reads or writes them, names their columns
/// (`ProfileColumn`, `RequestsColumn`, …; the models' keys are these too) and announces each change
/// it makes.
///
/// An announcement (`announce`) is what keeps the memories of profiles in step on every instance:
/// the searching index (`/nearby`, the apps' search) and the record of each person's own profile
/// (`records`, what every mates request's gate reads). A caller never tells them itself. Writes
/// inside `transaction` are announced once it committed, so no memory can re-read the old row
/// after being told.
///
/// `MatesService` holds the rules and calls the store. The rest of the aggregate is the store's
/// too: the matches and their chat (`MatesStore+Matches.swift`), the one-time codes
/// (`MatesStore+Codes.swift`), reviews, reports, dodges and purchases (`MatesStore+Reviews.swift`).
package struct MatesStore {
    /// Made when first used: a read answered from memory never asks the pool for one.
    private let databaseSource: @Sendable () -> any Database
    package var database: any Database { databaseSource() }
    /// The clock, the bus, the log and the memories it keeps right (`MatesEnvironment`).
    let environment: MatesEnvironment
    /// Inside `transaction`: who changed so far, announced after the commit. Nil outside one.
    private let pending: ChangeLog<Changes>?

    package init(database: any Database, environment: MatesEnvironment) {
        self.init(database: database, environment: environment, pending: nil)
    }

    /// The store with the environment `MatesFeature.configure` made.
    package init(database: any Database, application: Application) {
        self.init(database: database, environment: application.matesEnvironment)
    }

    private init(database: any Database, environment: MatesEnvironment, pending: ChangeLog<Changes>?) {
        self.databaseSource = { database }
        self.environment = environment
        self.pending = pending
    }

    private init(source: @escaping @Sendable () -> any Database, environment: MatesEnvironment) {
        self.databaseSource = source
        self.environment = environment
        self.pending = nil
    }

    /// A store on a transaction its caller commits (an account's deletion): its writes are not
    /// announced, the caller announces once the transaction is done.
    static func unannounced(on transaction: any Database, application: Application) -> MatesStore {
        MatesStore(database: transaction, environment: application.matesEnvironment, pending: ChangeLog(Changes()))
    }

    /// A store whose database is the service's (made when first used).
    static func sharing(_ source: @escaping @Sendable () -> any Database, application: Application) -> MatesStore {
        MatesStore(source: source, environment: application.matesEnvironment)
    }

    /// Where changes are announced: the searching index and the records follow it.
    package static let topic = "mates.profiles"

    /// The aggregate's tables written without a Fluent model (rows insert themselves by their coding
    /// keys), each named here once.
    package enum Table {
        package static let matches = "mates_matches", messages = "mates_messages", reviews = "mates_reviews", reports = "mates_reports"
        package static let dodges = "mates_dodges", codes = "mates_verification_codes", purchases = "mates_purchases"
    }
    /// Where the store announces whose askers changed (`askers`).
    static let requestsTopic = "mates.requests"

    /// The columns of `mates_profiles`, each named here once (the model's keys, every statement).
    enum ProfileColumn: String, TableColumn {
        case id, gender, birthYear = "birth_year", topicsJSON = "topics", searchable, ageMin = "age_min", ageMax = "age_max", avatar
        case background, state, lat, lon, queueTopicsJSON = "queue_topics", queuedAt = "queued_at", matchID = "match_id"
        case verifiedChannel = "verified_channel", verifiedDestinationHash = "verified_destination_hash"
        case verifiedMasked = "verified_masked", suspendedAt = "suspended_at", reportsClearedAt = "reports_cleared_at"
        case searchBlockedUntil = "search_blocked_until", createdAt = "created_at", updatedAt = "updated_at"
        /// The six reputation counters, `ReputationCategory` order.
        case rep0 = "rep_0", rep1 = "rep_1", rep2 = "rep_2", rep3 = "rep_3", rep4 = "rep_4", rep5 = "rep_5"
        static let reputation = [rep0, rep1, rep2, rep3, rep4, rep5]
    }
    typealias Column = ProfileColumn

    private var table: String { MatesProfile.schema }
    var sql: any SQLDatabase { database.sql }
    private var index: SearchingIndex { environment.index }
    private var records: PersonMemory<MatesOwnRecord?> { environment.records }

    // MARK: Reads

    /// The person's own profile and their match that ended last, as every mates request's gate
    /// reads them: from memory, else two statements (kept until the store announces a change of
    /// theirs). Nil for an account that never verified, remembered too (the first profile's
    /// insert announces it).
    package func record(_ user: UUID) async throws -> MatesOwnRecord? {
        if let remembered = records.value(for: user) { return remembered }
        let generation = records.generation
        guard let snapshot = try await readSnapshot(user) else {
            records.remember(nil, for: user, readAt: generation)
            return nil
        }
        let record = MatesOwnRecord(profile: snapshot, lastEnded: try await readLastEndedMatch(user))
        records.remember(record, for: user, readAt: generation)
        return record
    }

    /// The person's own profile (`record`), or nil.
    package func snapshot(_ user: UUID) async throws -> MatesProfileSnapshot? {
        try await record(user)?.profile
    }

    /// Whether the account verified for mates.
    package func exists(_ user: UUID) async throws -> Bool {
        try await snapshot(user) != nil
    }

    /// The whole row, for a write that changes several fields (`save`).
    package func model(_ user: UUID) async throws -> MatesProfile? {
        try await sql.select().columns(Column.allCases).from(table).where(SQLIdentifier(Column.id), .equal, SQLBind(user))
            .first(decoding: MatesProfile.self)
    }

    /// The account that verified with this destination, if any.
    package func holder(ofDestination destinationHash: String) async throws -> UUID? {
        try await sql.select().column(SQLIdentifier(Column.id)).from(SQLIdentifier(table))
            .where(SQLIdentifier(Column.verifiedDestinationHash), .equal, SQLBind(destinationHash))
            .first(decodingColumn: Column.id, as: UUID.self)
    }

    /// The states of these people (those with a profile).
    package func states(of users: [UUID]) async throws -> [UUID: MatesState] {
        guard !users.isEmpty else { return [:] }
        let rows = try await sql.raw("""
            SELECT \(ident: Column.id), \(ident: Column.state) FROM \(ident: table) WHERE \(ident: Column.id) IN (\(binds: users))
            """).all()
        var states: [UUID: MatesState] = [:]
        for row in rows {
            states[try row.decode(column: Column.id, as: UUID.self)] = MatesState(rawValue: try row.decode(column: Column.state, as: String.self)) ?? .idle
        }
        return states
    }

    /// A person as others see them (the partner on the chat, review and report pages): one row
    /// joined with the account's nickname.
    package func person(_ user: UUID) async throws -> MatePerson? {
        let shown = [Column.gender, Column.topicsJSON, Column.avatar, Column.background] + Column.reputation
        // Written out: the chat, review and report pages read it on every view.
        let account = AccountStore.personJoinSQL("person", on: "p.\(ident: Column.id)")
        guard let row = try await sql.raw("""
            SELECT \(account.columns), \(SQLList(shown.map { SQLColumn($0, table: "p") }))
            FROM \(ident: table) p \(account.join) WHERE p.\(ident: Column.id) = \(bind: user)
            """).first() else { return nil }
        return MatePerson(id: user, nickname: try AccountStore.person("person", id: user, in: row).nickname,
                          gender: try row.decode(column: Column.gender, as: String.self),
                          topics: MatesProfile.decodeList(try row.decode(column: Column.topicsJSON, as: String.self)),
                          reputation: try Column.reputation.map { try row.decode(column: $0, as: Int.self) },
                          avatar: try row.decode(column: Column.avatar, as: Int.self),
                          background: try row.decode(column: Column.background, as: Int.self))
    }

    /// Everyone searching and not suspended (or only `id`), with their nicknames: what the
    /// searching index holds.
    func searchingEntries(only id: UUID? = nil) async throws -> [SearchingIndex.Entry] {
        let query = sql.select()
            .column(SQLColumn(Column.id, table: table))
            .columns([Column.gender, Column.birthYear, Column.ageMin, Column.ageMax, Column.searchable, Column.queueTopicsJSON]
                     + Column.reputation + [Column.avatar, Column.background, Column.lat, Column.lon, Column.queuedAt])
            .from(table)
            .joiningPerson("person", on: SQLColumn(Column.id, table: table))
            .where(SQLColumn(Column.state, table: table), .equal, SQLBind(MatesState.searching.rawValue))
            .where(SQLColumn(Column.suspendedAt, table: table), .is, SQLLiteral.null)
        if let id { query.where(SQLColumn(Column.id, table: table), .equal, SQLBind(id)) }
        return try await query.all().compactMap { row in
            guard let birthYear = try row.decode(column: Column.birthYear, as: Int?.self),
                  let lat = try row.decode(column: Column.lat, as: Double?.self), let lon = try row.decode(column: Column.lon, as: Double?.self)
            else { return nil }
            let id = try row.decode(column: Column.id, as: UUID.self)
            let queuedAt = try row.decode(column: Column.queuedAt, as: Date?.self) ?? Date(timeIntervalSince1970: 0)
            let shown = SearchPositionBlur.publicPosition(of: Coordinate(unchecked: lat, lon), person: id, since: queuedAt)
            return SearchingIndex.Entry(
                id: id, nickname: try AccountStore.person("person", id: id, in: row).nickname,
                gender: try row.decode(column: Column.gender, as: String.self), birthYear: birthYear,
                ageMin: try row.decode(column: Column.ageMin, as: Int.self), ageMax: try row.decode(column: Column.ageMax, as: Int.self),
                searchable: try row.decode(column: Column.searchable, as: Bool.self),
                topics: MatesProfile.decodeList(try row.decode(column: Column.queueTopicsJSON, as: String?.self) ?? "[]"),
                reputation: try Column.reputation.map { try row.decode(column: $0, as: Int.self) },
                avatar: try row.decode(column: Column.avatar, as: Int.self), background: try row.decode(column: Column.background, as: Int.self),
                lat: shown.lat, lon: shown.lon, queuedAt: queuedAt)
        }
    }

    /// The profile as one row, no model (the model's reflection was a fifth of a mates page).
    func readSnapshot(_ user: UUID) async throws -> MatesProfileSnapshot? {
        let columns = [Column.gender, Column.birthYear, Column.topicsJSON, Column.searchable, Column.ageMin, Column.ageMax, Column.avatar,
                       Column.background] + Column.reputation
            + [Column.state, Column.queuedAt, Column.matchID, Column.verifiedChannel, Column.verifiedMasked, Column.suspendedAt,
               Column.searchBlockedUntil, Column.reportsClearedAt, Column.lat, Column.lon]
        guard let row = try await sql.raw("""
            SELECT \(SQLList(columns.map { SQLIdentifier($0) })) FROM \(ident: table) WHERE \(ident: Column.id) = \(bind: user)
            """).first() else { return nil }
        let state = try row.decode(column: Column.state, as: String.self)
        return MatesProfileSnapshot(
            id: user, gender: try row.decode(column: Column.gender, as: String.self),
            birthYear: try row.decode(column: Column.birthYear, as: Int?.self),
            topics: MatesProfile.decodeList(try row.decode(column: Column.topicsJSON, as: String.self)),
            searchable: try row.decode(column: Column.searchable, as: Bool.self),
            ageMin: try row.decode(column: Column.ageMin, as: Int.self), ageMax: try row.decode(column: Column.ageMax, as: Int.self),
            avatar: try row.decode(column: Column.avatar, as: Int.self), background: try row.decode(column: Column.background, as: Int.self),
            reputation: try Column.reputation.map { try row.decode(column: $0, as: Int.self) },
            state: MatesState(rawValue: state) ?? .idle,
            queuedAt: try row.decode(column: Column.queuedAt, as: Date?.self), matchID: try row.decode(column: Column.matchID, as: UUID?.self),
            verifiedChannel: try row.decode(column: Column.verifiedChannel, as: String.self),
            verifiedMasked: try row.decode(column: Column.verifiedMasked, as: String.self),
            suspended: try row.decode(column: Column.suspendedAt, as: Date?.self) != nil,
            searchBlockedUntil: try row.decode(column: Column.searchBlockedUntil, as: Date?.self),
            reportsClearedAt: try row.decode(column: Column.reportsClearedAt, as: Date?.self),
            searchPosition: MatesService.searchPosition(state: state, lat: try row.decode(column: Column.lat, as: Double?.self),
                                                        lon: try row.decode(column: Column.lon, as: Double?.self)))
    }

    /// The newest match of the person that ended (its id and end), if any. A match ends only
    /// where the store also moves both people back to idle, so the announcement covers it.

    // MARK: Announcing

    /// Runs `work` in one transaction with a store on it; the people whose profiles it changed are
    /// announced once it committed (nobody, when it rolled back).
    package func transaction<T: Sendable>(_ work: @escaping @Sendable (MatesStore) async throws -> T) async throws -> T {
        let environment = environment
        // What an attempt changed is collected per attempt: one rolled back and tried again tells nothing.
        let (result, changes) = try await database.writeTransaction(recording: Changes()) { transaction, log in
            try await work(MatesStore(database: transaction, environment: environment, pending: log))
        }
        await announce(changes.profiles)
        try await announceRequests(to: changes.askersOf)
        return result
    }

    /// Inside `transaction`: keeps whose askers changed for after the commit (true), else false.
    func deferred(askersOf users: [UUID]) -> Bool {
        guard let pending else { return false }
        pending.record { $0.askersOf.append(contentsOf: users) }
        return true
    }

    /// These people's profiles changed: every memory of them here is told at once, and the other
    /// instances by the event bus. Inside `transaction`, after its commit.
    package func announce(_ users: [UUID]) async {
        if let pending {
            pending.record { $0.profiles.append(contentsOf: users) }
            return
        }
        if !users.isEmpty { environment.matchPageViews.moveOn() }
        for user in Set(users) {
            records.apply(forgetting: user)
            await environment.events.publish(user.uuidString, to: Self.topic)
            // This instance's own follower refreshes the index as well (retrying a failed read);
            // done here too so the writer's next read already sees its change. The write has
            // committed: a failed re-read is logged, not answered as an error.
            guard index.isLoaded else { continue }
            do {
                index.refresh(user, entries: try await searchingEntries(only: user))
            } catch {
                environment.logger.warning("the searching index could not re-read a person after a write: \(error)")
            }
        }
    }

    /// Forgets every record here and on the other instances: an account's deletion, whose rows
    /// (the partner's ended match among them) went by cascade.
    func announceEveryone() async {
        environment.matchPageViews.moveOn()
        await records.forgetEveryone(announcingOn: environment.events)
        await environment.askers.forgetEveryone(announcingOn: environment.events)
    }

    /// Follows the other instances' announcements (and this one's, which find nothing left to do).
    package static func follow(_ app: Application) {
        app.matesRecords.follow(app)
        app.matesAskers.follow(app)
        app.matesEnvironment.purchases.follow(app)
        MatchPageViews.follow(app)
        SearchingIndex.follow(app, topic: topic)
    }
}

/// A person's own profile and the match of theirs that ended last: what the gate of every mates
/// request and the state read (`MatesStore.record`).
package struct MatesOwnRecord: Sendable {
    struct EndedMatch: Sendable, Equatable {
        let id: UUID
        let endedAt: Date
    }

    package let profile: MatesProfileSnapshot
    let lastEnded: EndedMatch?
}

extension MatesStore {
    /// The people a transaction changed (profiles, and whose askers), announced after its commit.
    struct Changes: Sendable {
        var profiles: [UUID] = []
        var askersOf: [UUID] = []
    }
}
