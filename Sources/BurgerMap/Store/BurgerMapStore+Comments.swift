import Accounts
package import Fluent
import Foundation
import Platform
import SQLKit

/// Comments on reviews (`burger_comments`), each moving its review's comment count in the same
/// transaction; and the lists the LookForRealBurger app's posts carry whole (each place's reviews,
/// each review's comments).
extension BurgerMapStore {
    enum CommentColumn: String, TableColumn {
        case id, reviewID = "review_id", authorID = "author_id", text, createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// A new comment as written: every column of `burger_comments`.
    struct NewComment: Encodable {
        typealias CodingKeys = CommentColumn
        let id: UUID, reviewID: UUID, authorID: UUID, text: String, createdAt: Date, updatedAt: Date
    }

    static var comments: SQLIdentifier { SQLIdentifier(BurgerComment.schema) }
    private static func comment(_ column: some TableColumn) -> SQLColumn { SQLColumn(column, table: BurgerComment.schema) }

    /// Comments with their authors.
    private func commentQuery() -> SQLSelectBuilder {
        sql.select()
            .columns([CommentColumn.id, CommentColumn.reviewID, CommentColumn.authorID, CommentColumn.text, CommentColumn.createdAt,
                      CommentColumn.updatedAt].map { Self.comment($0) })
            .from(Self.comments).joiningPerson("author", on: Self.comment(CommentColumn.authorID))
    }

    private static func commentRow(from row: any SQLRow) throws -> CommentRow {
        CommentRow(id: try row.decode(column: CommentColumn.id, as: UUID.self),
                   author: PersonRow(try AccountStore.person("author", id: try row.decode(column: CommentColumn.authorID, as: UUID.self), in: row)),
                   text: try row.decode(column: CommentColumn.text, as: String.self), createdAt: try row.decode(column: CommentColumn.createdAt, as: Date.self),
                   reviewID: try row.decode(column: CommentColumn.reviewID, as: UUID.self),
                   updatedAt: try row.decode(column: CommentColumn.updatedAt, as: Date?.self))
    }

    func comment(_ id: UUID) async throws -> CommentRow? {
        try await commentQuery().where(Self.comment(CommentColumn.id), .equal, SQLBind(id)).first().map(Self.commentRow(from:))
    }

    /// The comment whose id begins with the LookForRealBurger app's 24-hex `objectID`.
    package func comment(objectID: String) async throws -> CommentRow? {
        guard let id = try await id(in: Self.comments, objectID: objectID) else { return nil }
        return try await comment(id)
    }

    /// A review's comments, newest first.
    func comments(on reviewID: UUID, _ page: CursorPageRequest) async throws -> (items: [CommentRow], nextCursor: String?) {
        let rows = try await commentQuery().where(Self.comment(CommentColumn.reviewID), .equal, SQLBind(reviewID))
            .newestFirst(createdAt: Self.comment(CommentColumn.createdAt), id: Self.comment(CommentColumn.id), page).all()
        return page.page(of: try rows.map(Self.commentRow(from:)))
    }

    /// Every comment of each review, newest first.
    package func comments(ofReviews ids: [UUID]) async throws -> [UUID: [CommentRow]] {
        var result: [UUID: [CommentRow]] = [:]
        for chunk in ids.chunked(StatementLimits.bindsPerStatement) {
            let rows = try await commentQuery().where(Self.comment(CommentColumn.reviewID), .in, SQLBind.group(Array(chunk)))
                .orderBy(Self.comment(CommentColumn.createdAt), SQLDirection.descending).orderBy(Self.comment(CommentColumn.id), SQLDirection.descending).all()
            for row in rows {
                let comment = try Self.commentRow(from: row)
                result[comment.reviewID ?? UUID(), default: []].append(comment)
            }
        }
        return result
    }

    /// Each place's visible reviews, newest first, as the LookForRealBurger app's shop posts list
    /// them: "comments" whose text is the review's 24-hex id.
    package func reviewsAsComments(ofPlaces ids: [UUID]) async throws -> [UUID: [CommentRow]] {
        let review = { (name: ReviewColumn) in SQLColumn(name, table: BurgerReview.schema) }
        var result: [UUID: [CommentRow]] = [:]
        for chunk in ids.chunked(StatementLimits.bindsPerStatement) {
            let rows = try await sql.select()
                .columns([ReviewColumn.id, ReviewColumn.placeID, ReviewColumn.createdAt, ReviewColumn.authorID].map { review($0) })
                .from(Self.reviews).joiningPerson("author", on: review(ReviewColumn.authorID))
                .where(review(ReviewColumn.placeID), .in, SQLBind.group(Array(chunk))).where(review(ReviewColumn.hiddenAt), .is, SQLLiteral.null)
                .orderBy(review(ReviewColumn.createdAt), SQLDirection.descending).orderBy(review(ReviewColumn.id), SQLDirection.descending).all()
            for row in rows {
                let id = try row.decode(column: ReviewColumn.id, as: UUID.self)
                let author = try AccountStore.person("author", id: try row.decode(column: ReviewColumn.authorID, as: UUID.self), in: row)
                result[try row.decode(column: ReviewColumn.placeID, as: UUID.self), default: []].append(
                    CommentRow(id: id, author: PersonRow(author), text: ObjectID.of(id), createdAt: try row.decode(column: ReviewColumn.createdAt, as: Date.self)))
            }
        }
        return result
    }

    // MARK: Writing

    /// Writes a comment and counts it on its review.
    func addComment(_ text: String, on reviewID: UUID, by author: UUID) async throws -> UUID {
        let now = environment.now().wholeMicroseconds
        let comment = NewComment(id: UUID(), reviewID: reviewID, authorID: author, text: text, createdAt: now, updatedAt: now)
        try await transaction { store in
            try await store.sql.insert(comment, into: BurgerComment.schema)
            try await store.increment(.comments, of: reviewID, by: 1)
        }
        await announcements.contentChanged(places: [])  // a review's comments: no place shows them
        return comment.id
    }

    func editComment(_ id: UUID, text: String) async throws {
        try await sql.update(Self.comments).set(SQLIdentifier(CommentColumn.text), to: SQLBind(text))
            .set(SQLIdentifier(CommentColumn.updatedAt), to: SQLBind(environment.now())).where(SQLIdentifier(CommentColumn.id), .equal, SQLBind(id)).run()
        await announcements.contentChanged(places: [])
    }

    /// Deletes a comment and takes it off its review's count (once, if two deletes race). `audit`:
    /// the operator's entry, written in the same transaction when this call deleted it.
    func deleteComment(_ comment: CommentRow, audit: AuditEntry? = nil) async throws {
        try await transaction { store in
            let removed = try await store.sql.delete(from: Self.comments).where(SQLIdentifier(CommentColumn.id), .equal, SQLBind(comment.id))
                .returning(SQLIdentifier(CommentColumn.id)).all()
            guard !removed.isEmpty else { return }
            if let reviewID = comment.reviewID { try await store.increment(.comments, of: reviewID, by: -1) }
            if let audit { try await AuditLog(database: store.database).record(audit) }
        }
        await announcements.contentChanged(places: [])
    }
}

/// A comment with its author; also a place's review as the LookForRealBurger app's shop posts list
/// it (the review's id is the "comment's" text there, and `reviewID` is nil).
package struct CommentRow: Sendable, NewestFirstRow {
    package let id: UUID
    package let author: PersonRow
    package let text: String
    package let createdAt: Date
    /// The review commented on.
    package let reviewID: UUID?
    package let updatedAt: Date?

    package init(id: UUID, author: PersonRow, text: String, createdAt: Date, reviewID: UUID? = nil, updatedAt: Date? = nil) {
        self.id = id
        self.author = author
        self.text = text
        self.createdAt = createdAt
        self.reviewID = reviewID
        self.updatedAt = updatedAt
    }
}
