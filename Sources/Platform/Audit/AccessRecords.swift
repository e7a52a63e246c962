package import Fluent
import Foundation
import NIOConcurrencyHelpers
package import SQLKit
package import Vapor

/// What an administrator looked at of someone's personal data in the console: who looked, at
/// whose, when, what (an order's page, a person's page, a search, a day's export) and from which
/// network. Korea's 개인정보의 안전성 확보조치 기준 (제8조) asks that such access records be kept
/// and checked; they are kept two years (`keptDays`), the longer period it names, then pruned by
/// the daily chore. Written by the page that shows the data; read by administrators at
/// `/admin/audit/access`. Like the audit log, there is no update and no delete but the pruning.
package struct AccessRecord: Sendable, Equatable, NewestFirstRow {
    package let id: UUID
    package let actorID: UUID
    /// What was looked at: `banchan.order.view`, `banchan.orders.search`, `banchan.orders.export`,
    /// `banchan.orders.packing`, `accounts.person.view`.
    package let what: String
    /// Whose data: an account, when there is one.
    package let personID: UUID?
    /// The thing shown: an order's number, a day, the words searched for.
    package let subject: String
    /// The client's address as the server saw it (behind a proxy, the one it forwarded).
    package let network: String
    package let createdAt: Date

    package init(actorID: UUID, what: String, personID: UUID?, subject: String, network: String, at now: Date) {
        id = UUID()
        self.actorID = actorID
        self.what = what
        self.personID = personID
        self.subject = String(subject.prefix(200))
        self.network = network
        createdAt = now.wholeMicroseconds
    }

    init(row: any SQLRow) throws {
        typealias Column = AccessRecords.Column
        id = try row.decode(column: Column.id, as: UUID.self)
        actorID = try row.decode(column: Column.actorID, as: UUID.self)
        what = try row.decode(column: Column.what, as: String.self)
        personID = try row.decode(column: Column.personID, as: UUID?.self)
        subject = try row.decode(column: Column.subject, as: String.self)
        network = try row.decode(column: Column.network, as: String.self)
        createdAt = try row.decode(column: Column.createdAt, as: Date.self)
    }
}

/// The one owner of `access_records`.
package struct AccessRecords {
    package static let table = "access_records"
    /// Two years: 제8조's period for a service that handles many people's data.
    package static let keptDays = 730

    enum Column: String, TableColumn, CaseIterable {
        case id, actorID = "actor_id", what, personID = "person_id", subject, network, createdAt = "created_at"
    }

    let database: any Database
    private var sql: any SQLDatabase { database.sql }

    package init(database: any Database) { self.database = database }

    /// Writes records in one statement; only `AccessRecordWriter` calls it (a view's record goes
    /// through the writer, `Request.recordAccess`).
    func record(_ records: [AccessRecord]) async throws {
        guard !records.isEmpty else { return }
        let insert = sql.insert(into: Self.table).columns(Column.allCases)
        for record in records {
            insert.values(SQLBind(record.id), SQLBind(record.actorID), SQLBind(record.what), SQLBind(record.personID), SQLBind(record.subject),
                          SQLBind(record.network), SQLBind(record.createdAt))
        }
        try await insert.run()
    }

    /// Newest first, a page at a time; one person's when given.
    package func page(_ page: CursorPageRequest, person: UUID? = nil) async throws -> (items: [AccessRecord], nextCursor: String?) {
        let query = sql.select().columns(Column.allCases).from(Self.table)
        if let person { query.where(SQLIdentifier(Column.personID), .equal, SQLBind(person)) }
        let rows = try await query.newestFirst(createdAt: SQLColumn(Column.createdAt.rawValue), id: SQLColumn(Column.id.rawValue), page).all()
        return page.page(of: try rows.map(AccessRecord.init(row:)))
    }

    /// Removes records older than `keptDays` at `now`; how many went.
    package func prune(now: Date) async throws -> Int {
        let cutoff = now.addingTimeInterval(-Double(Self.keptDays) * 86_400)
        return try await sql.delete(from: Self.table).where(SQLIdentifier(Column.createdAt), .lessThan, SQLBind(cutoff))
            .returning(SQLIdentifier(Column.id)).all().count
    }
}

/// Writes access records as a group commit: a view waits until its record is written, as before,
/// but the views that arrive while one statement is being written go together in the next one. A
/// console view wrote (and committed) one row of its own, and a crowd of views queued behind each
/// other's commits — SQLite writes one at a time — so the page served a fifth of a page without it.
/// Nothing is answered before its record committed, and a batch that fails fails every view in it.
/// What waits is one record per view in flight (each view waits for its own), so it holds no more
/// than the server's connections allow.
package final class AccessRecordWriter: Sendable {
    private struct Waiting: Sendable {
        let record: AccessRecord
        let done: CheckedContinuation<Void, any Error>
    }

    private struct State: Sendable {
        var waiting: [Waiting] = []
        var writing = false
    }

    /// Rows per statement: seven values each, well under SQLite's and PostgreSQL's bind limits.
    static let rowsPerStatement = 500

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Returns once `record` is written (on `database`, or the database of the view that writes
    /// its batch); throws what writing its batch threw.
    package func write(_ record: AccessRecord, on database: any Database) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            let leads = state.withLockedValue { state -> Bool in
                state.waiting.append(Waiting(record: record, done: done))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            // The first view to find nobody writing writes for everyone until nobody waits.
            if leads { Task { await self.writeWaiting(on: database) } }
        }
    }

    private func writeWaiting(on database: any Database) async {
        while true {
            let batch = state.withLockedValue { state -> [Waiting] in
                let batch = Array(state.waiting.prefix(Self.rowsPerStatement))
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty { state.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                try await AccessRecords(database: database).record(batch.map(\.record))
                for waiting in batch { waiting.done.resume() }
            } catch {
                for waiting in batch { waiting.done.resume(throwing: error) }
            }
        }
    }
}

extension Application {
    private struct AccessRecordWriterKey: StorageKey { typealias Value = AccessRecordWriter }

    /// The one writer of this process's access records (made in `configure`; see `AccessRecordWriter`).
    package var accessRecordWriter: AccessRecordWriter {
        get { configured(AccessRecordWriterKey.self) }
        set { storage[AccessRecordWriterKey.self] = newValue }
    }
}

extension Request {
    /// Records that the signed-in administrator was shown `what` of `person`'s data (`subject`: the
    /// order, the day, the words). A record that cannot be written fails the page: data shown
    /// unrecorded is what the rule forbids.
    package func recordAccess(_ what: String, person: UUID?, subject: String) async throws {
        guard let actor = signedInAccount?.id else { return }
        try await application.accessRecordWriter.write(AccessRecord(actorID: actor, what: what, personID: person, subject: subject,
                                                                    network: clientAddress, at: application.siteClock()), on: db)
    }
}

/// The table; records name accounts without foreign keys (a record outlives both accounts).
package struct CreateAccessRecords: NamedMigration {
    package init() {}

    package func prepare(on database: any Database) async throws {
        try await database.schema(AccessRecords.table).id()
            .fields([(AccessRecords.Column.actorID, .uuid), (.what, .string), (.subject, .string), (.network, .string), (.createdAt, .datetime)])
            .fields([(AccessRecords.Column.personID, .uuid)], optional: true)
            .create()
        try await database.sql.create(index: "access_records_created").on(AccessRecords.table).column(AccessRecords.Column.createdAt.rawValue).run()
        try await database.sql.create(index: "access_records_person").on(AccessRecords.table).column(AccessRecords.Column.personID.rawValue).run()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(AccessRecords.table).delete()
    }
}
