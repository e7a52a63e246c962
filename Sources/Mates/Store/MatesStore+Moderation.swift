import Fluent
import Foundation
import Platform
import SQLKit

/// What the console's Moderation tab reads of mates: who is suspended, since when, and the reports
/// that suspended them (those made since an operator last lifted a suspension of theirs).
extension MatesStore {
    struct Suspension: Sendable, Equatable {
        let user: UUID
        let since: Date
        let reports: Int
        /// The newest report's categories and comment.
        let lastCategories: [String]
        let lastComment: String?
    }

    func suspensions(limit: Int = 50) async throws -> [Suspension] {
        let rows = try await sql.select().column(SQLIdentifier(Column.id)).column(SQLIdentifier(Column.suspendedAt)).column(SQLIdentifier(Column.reportsClearedAt))
            .from(MatesProfile.schema).where(SQLIdentifier(Column.suspendedAt), .isNot, SQLLiteral.null)
            .orderBy(Column.suspendedAt, .descending).limit(limit).all()
        var suspensions: [Suspension] = []
        for row in rows {
            let user = try row.decode(column: Column.id, as: UUID.self)
            let cleared = try row.decode(column: Column.reportsClearedAt, as: Date?.self)
            var newest = sql.select().columns(ReportColumn.categories, ReportColumn.comment).from(Table.reports)
                .where(SQLIdentifier(ReportColumn.reportedID), .equal, SQLBind(user))
            if let cleared { newest = newest.where(SQLIdentifier(ReportColumn.createdAt), .greaterThan, SQLBind(cleared)) }
            let last = try await newest.orderBy(ReportColumn.createdAt, .descending).limit(1).first()
            suspensions.append(Suspension(
                user: user, since: try row.decode(column: Column.suspendedAt, as: Date.self), reports: try await countReports(of: user, since: cleared),
                lastCategories: try last?.decode(column: ReportColumn.categories, as: String.self).split(separator: ",").map(String.init) ?? [],
                lastComment: try last?.decode(column: ReportColumn.comment, as: String.self)))
        }
        return suspensions
    }

    /// Whether the account is suspended from mates now.
    func isSuspended(_ user: UUID) async throws -> Bool {
        try await sql.count(SQLIdentifier(MatesProfile.schema)) {
            $0.where(SQLIdentifier(Column.id), .equal, SQLBind(user)).where(SQLIdentifier(Column.suspendedAt), .isNot, SQLLiteral.null)
        } > 0
    }

    func suspensionCount() async throws -> Int {
        try await sql.count(SQLIdentifier(MatesProfile.schema)) { $0.where(SQLIdentifier(Column.suspendedAt), .isNot, SQLLiteral.null) }
    }
}
