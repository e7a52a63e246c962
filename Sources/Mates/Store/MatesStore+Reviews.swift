package import Fluent
import Foundation
import Platform
import SQLKit

/// What people say and do about each other in `MatesStore`'s aggregate — reviews, reports, dodges —
/// and what they bought: `mates_reviews`, `mates_reports`, `mates_dodges` and `mates_purchases`,
/// read and written only here, each column named once (the rows' coding keys or an enum of columns).
extension MatesStore {
    typealias ReviewColumn = ReviewRow.CodingKeys

    typealias ReportColumn = ReportRow.CodingKeys

    enum DodgeColumn: String, TableColumn {
        case id, userID = "user_id", matchID = "match_id", createdAt = "created_at"
    }

    package enum PurchaseColumn: String, TableColumn {
        case id, userID = "user_id", transactionID = "transaction_id", productID = "product_id"
        case itemKind = "item_kind", itemIndex = "item_index", environment, createdAt = "created_at"
    }

    // MARK: Reviews

    /// Writes one side's review of an ended match and adds its picks to the reviewee's reputation
    /// (run it inside `transaction`). 409 `already_reviewed` for a second review of the same side.
    func addReview(match: UUID, by reviewer: UUID, of reviewee: UUID, picks: [Bool], comment: String) async throws -> ReviewRow {
        let review = ReviewRow(id: UUID(), matchID: match, reviewerID: reviewer, revieweeID: reviewee,
                               picks: picks.map { $0 ? "1" : "0" }.joined(separator: ","), comment: comment, createdAt: environment.now().wholeMicroseconds)
        do {
            try await sql.insert(review, into: Table.reviews)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("already_reviewed")
        }
        try await addReputation(reviewee, picked: picks.enumerated().filter(\.element).map(\.offset))
        return review
    }

    /// Whether `user` reviewed the match.
    func hasReviewed(_ match: UUID, by user: UUID) async throws -> Bool {
        try await sql.select().column(SQLIdentifier(ReviewColumn.id)).from(MatesStore.Table.reviews)
            .where(SQLIdentifier(ReviewColumn.matchID), .equal, SQLBind(match))
            .where(SQLIdentifier(ReviewColumn.reviewerID), .equal, SQLBind(user)).limit(1).first() != nil
    }

    /// The people `reviewer` reviewed, oldest first.
    package func reviewees(of reviewer: UUID) async throws -> [UUID] {
        try await sql.select().column(SQLIdentifier(ReviewColumn.revieweeID)).from(MatesStore.Table.reviews)
            .where(SQLIdentifier(ReviewColumn.reviewerID), .equal, SQLBind(reviewer)).orderBy(ReviewColumn.createdAt)
            .all(decodingColumn: ReviewColumn.revieweeID, as: UUID.self)
    }

    /// The comments left in reviews of these people, newest first, at most `limit` each, in one
    /// statement (the apps' search asks for 100 people a call). Numbered per person, so one with
    /// many comments cannot crowd out the others.
    func receivedComments(of users: [UUID], limit: Int) async throws -> [UUID: [String]] {
        guard !users.isEmpty else { return [:] }
        let reviewee = SQLIdentifier(ReviewColumn.revieweeID), comment = SQLIdentifier(ReviewColumn.comment)
        let created = SQLIdentifier(ReviewColumn.createdAt)
        let rows = try await sql.raw("""
            SELECT \(reviewee), \(comment) FROM (
                SELECT \(reviewee), \(comment), \(created), ROW_NUMBER() OVER (PARTITION BY \(reviewee) ORDER BY \(created) DESC) AS position
                FROM \(ident: MatesStore.Table.reviews) WHERE \(reviewee) IN (\(binds: Array(Set(users)))) AND \(comment) <> ''
            ) numbered WHERE position <= \(literal: limit) ORDER BY \(created) DESC
            """).all()
        var comments: [UUID: [String]] = [:]
        for row in rows {
            let person = try row.decode(column: ReviewColumn.revieweeID, as: UUID.self)
            if comments[person, default: []].count < limit {
                comments[person, default: []].append(try row.decode(column: ReviewColumn.comment, as: String.self))
            }
        }
        return comments
    }

    // MARK: Reports

    /// Writes a report. 409 `already_reported` for the same pair a second time.
    func addReport(by reporter: UUID, of reported: UUID, categories: [ReportCategory], comment: String) async throws -> ReportRow {
        let report = ReportRow(id: UUID(), reporterID: reporter, reportedID: reported, categories: categories.map(\.rawValue).joined(separator: ","),
                               comment: comment, createdAt: environment.now().wholeMicroseconds)
        do {
            try await sql.insert(report, into: Table.reports)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("already_reported")
        }
        // The console counts the reports against a suspended person: its views follow the profile's announcements.
        await announce([reported])
        return report
    }

    /// Reports of `reported` made after `since` (all when nil).
    func countReports(of reported: UUID, since: Date?) async throws -> Int {
        try await sql.count(SQLIdentifier(MatesStore.Table.reports)) { query in
            query.where(SQLIdentifier(ReportColumn.reportedID), .equal, SQLBind(reported))
            if let since { query.where(SQLIdentifier(ReportColumn.createdAt), .greaterThan, SQLBind(since)) }
            return query
        }
    }

    /// The people `reporter` reported, oldest first.
    package func reportedPeople(by reporter: UUID) async throws -> [UUID] {
        try await sql.select().column(SQLIdentifier(ReportColumn.reportedID)).from(MatesStore.Table.reports)
            .where(SQLIdentifier(ReportColumn.reporterID), .equal, SQLBind(reporter)).orderBy(ReportColumn.createdAt)
            .all(decodingColumn: ReportColumn.reportedID, as: UUID.self)
    }

    // MARK: Dodges

    /// Records a match left early by `user`.
    func recordDodge(by user: UUID, match: UUID, at now: Date) async throws {
        try await sql.insert(into: Table.dodges).columns(DodgeColumn.id, .userID, .matchID, .createdAt)
            .values(SQLBind(UUID()), SQLBind(user), SQLBind(match), SQLBind(now)).run()
    }

    /// The matches `user` left early after `since` (all when nil).
    package func countDodges(by user: UUID, since: Date?) async throws -> Int {
        try await sql.count(SQLIdentifier(MatesStore.Table.dodges)) { query in
            query.where(SQLIdentifier(DodgeColumn.userID), .equal, SQLBind(user))
            if let since { query.where(SQLIdentifier(DodgeColumn.createdAt), .greaterThan, SQLBind(since)) }
            return query
        }
    }

    // MARK: Purchases

    /// The items `user` bought: kind (`MatesItemKind`) and index each; kept per person
    /// (`MatesEnvironment.purchases`) until `recordPurchase` forgets them (the shop and the
    /// profile show them on every view).
    func purchasedItems(of user: UUID) async throws -> [(kind: String, index: Int)] {
        try await environment.purchases.value(for: user) { try await storedPurchases(of: user) }
    }

    private func storedPurchases(of user: UUID) async throws -> [(kind: String, index: Int)] {
        try await sql.select().column(SQLIdentifier(PurchaseColumn.itemKind)).column(SQLIdentifier(PurchaseColumn.itemIndex))
            .from(MatesStore.Table.purchases).where(SQLIdentifier(PurchaseColumn.userID), .equal, SQLBind(user)).all()
            .map { (kind: try $0.decode(column: PurchaseColumn.itemKind, as: String.self), index: try $0.decode(column: PurchaseColumn.itemIndex, as: Int.self)) }
    }

    /// The transactions `user`'s purchases came from, oldest first.
    package func purchaseTransactionIDs(of user: UUID) async throws -> [String] {
        try await sql.select().column(SQLIdentifier(PurchaseColumn.transactionID)).from(MatesStore.Table.purchases)
            .where(SQLIdentifier(PurchaseColumn.userID), .equal, SQLBind(user)).orderBy(PurchaseColumn.createdAt)
            .all(decodingColumn: PurchaseColumn.transactionID, as: String.self)
    }

    /// Records a purchase: false when this transaction was honoured already (by anyone).
    package func recordPurchase(by user: UUID, transactionID: String, productID: String, kind: MatesItemKind, index: Int, environment: String) async throws -> Bool {
        do {
            try await sql.insert(into: Table.purchases)
                .columns(PurchaseColumn.id, .userID, .transactionID, .productID, .itemKind, .itemIndex, .environment, .createdAt)
                .values(SQLBind(UUID()), SQLBind(user), SQLBind(transactionID), SQLBind(productID), SQLBind(kind.rawValue), SQLBind(index),
                        SQLBind(environment), SQLBind(self.environment.now().wholeMicroseconds))
                .run()
            await self.environment.purchases.forget(user, announcingOn: self.environment.events)
            return true
        } catch let error as any DatabaseError where error.isConstraintFailure {
            return false
        }
    }
}

/// A review as the store writes and returns it.
package struct ReviewRow: Codable, Sendable, Equatable {
    package let id: UUID
    package let matchID: UUID
    let reviewerID: UUID
    let revieweeID: UUID
    /// "1,0,1,0,0,0": the picks, `ReputationCategory` order.
    let picks: String
    package let comment: String
    package let createdAt: Date?

    enum CodingKeys: String, TableColumn {
        case id, picks, comment
        case matchID = "match_id", reviewerID = "reviewer_id", revieweeID = "reviewee_id", createdAt = "created_at"
    }


    /// The picks as 1s and 0s, `ReputationCategory` order.
    package var reputation: [Int] { picks.split(separator: ",").compactMap { Int($0) } }
}

/// A report as the store writes and returns it.
package struct ReportRow: Codable, Sendable, Equatable {
    package let id: UUID
    let reporterID: UUID
    let reportedID: UUID
    /// Comma-separated `ReportCategory` values.
    let categories: String
    let comment: String
    package let createdAt: Date?

    enum CodingKeys: String, TableColumn {
        case id, categories, comment
        case reporterID = "reporter_id", reportedID = "reported_id", createdAt = "created_at"
    }


    var categoryNames: [String] { categories.split(separator: ",").map(String.init) }
}
