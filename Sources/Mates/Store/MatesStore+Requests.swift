import Fluent
package import Foundation
import Platform
import SQLKit
import Vapor

/// `mates_requests` ("let's meet", from one person searching to another): read and written only
/// here. Who asked a person is remembered (`askers`, every `/nearby` shows them) and forgotten
/// for each person a write touches, here and on the other instances (`requestsTopic`).
extension MatesStore {
    /// The columns of `mates_requests`, each named here once.
    enum RequestsColumn: String, TableColumn {
        case id, fromID = "from_id", toID = "to_id", createdAt = "created_at"
    }
    private typealias RC = RequestsColumn

    /// Who asked this person and still waits, newest first: from memory, else one statement.
    func askers(of user: UUID) async throws -> [UUID] {
        let memory = environment.askers
        if let remembered = memory.value(for: user) { return remembered }
        let generation = memory.generation
        let rows = try await sql.raw("""
            SELECT \(ident: RC.fromID) FROM \(ident: MatesRequest.schema) WHERE \(ident: RC.toID) = \(bind: user) ORDER BY \(ident: RC.createdAt) DESC
            """).all()
        let askers = try rows.map { try $0.decode(column: RC.fromID, as: UUID.self) }
        memory.remember(askers, for: user, readAt: generation)
        return askers
    }

    func request(_ id: UUID) async throws -> MatesRequest? {
        try await sql.select().columns(RC.allCases).from(MatesRequest.schema).where(SQLIdentifier(RC.id), .equal, SQLBind(id))
            .first(decoding: MatesRequest.self)
    }

    /// The request `asker` made to `target`, if it waits.
    package func request(from asker: UUID, to target: UUID) async throws -> MatesRequest? {
        try await sql.select().columns(RC.allCases).from(MatesRequest.schema)
            .where(SQLIdentifier(RC.fromID), .equal, SQLBind(asker)).where(SQLIdentifier(RC.toID), .equal, SQLBind(target))
            .first(decoding: MatesRequest.self)
    }

    /// Writes a new request (`created`), or finds the one already there when the same was sent
    /// twice at once.
    func createRequest(from asker: UUID, to target: UUID) async throws -> (request: MatesRequest?, created: Bool) {
        let request = MatesRequest(id: UUID(), fromID: asker, toID: target, createdAt: environment.now().wholeMicroseconds)
        do {
            try await sql.insert(request, into: MatesRequest.schema)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            return (try await self.request(from: asker, to: target), false)
        }
        try await announceRequests(to: [target])
        return (request, true)
    }

    /// Drops every request from or to these people (a search stopped or expired, a suspension).
    func dropRequests(involving users: [UUID]) async throws {
        guard !users.isEmpty else { return }
        let dropped = try await sql.raw("""
            DELETE FROM \(ident: MatesRequest.schema) WHERE \(ident: RC.fromID) IN (\(binds: users)) OR \(ident: RC.toID) IN (\(binds: users))
            RETURNING \(ident: RC.toID)
            """).all()
        try await announceRequests(to: try dropped.map { try $0.decode(column: RC.toID, as: UUID.self) })
    }

    /// Drops the requests the two made to each other (they matched).
    func dropRequests(between one: UUID, and other: UUID) async throws {
        let pair = [one, other]
        try await sql.raw("""
            DELETE FROM \(ident: MatesRequest.schema) WHERE \(ident: RC.fromID) IN (\(binds: pair)) AND \(ident: RC.toID) IN (\(binds: pair))
            """).run()
        try await announceRequests(to: pair)
    }

    /// Forgets who asked these people, here and on the other instances (inside `transaction`,
    /// once it committed).
    func announceRequests(to users: [UUID]) async throws {
        if deferred(askersOf: users) { return }
        for user in Set(users) { await environment.askers.forget(user, announcingOn: environment.events) }
    }
}
