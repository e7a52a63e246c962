import Accounts
package import Fluent
import Notifications
package import Platform
package import SQLKit
import Vapor

/// A review as lists and detail pages show it, with its place's name, its author and its photos.
/// Read with SQLKit into plain values: review lists are the burger map's hottest reads.
package struct ReviewCard: Sendable, NewestFirstRow {
    package let id: UUID
    package let placeID: UUID
    let placeName: String
    package let authorID: UUID
    package let authorNickname: String
    package let authorImageKey: String?
    package let title: String
    package let rating: Int
    package let text: String
    package let likeCount: Int
    package let bookmarkCount: Int
    package let commentCount: Int
    package let hidden: Bool
    package let createdAt: Date
    package let updatedAt: Date?
    package var photos: [PhotoRow] = []
    /// The reader's own state; false for anonymous readers.
    package var likedByMe = false
    package var bookmarkedByMe = false
}

/// Reads review cards, the store's part that lists and pages read: one query for the reviews with
/// their place and author, one for their photos, one for the reader's likes and bookmarks.
package struct ReviewCards {
    let store: BurgerMapStore

    private var sql: any SQLDatabase { store.sql }
    private typealias Column = BurgerMapStore.ReviewColumn
    static let review = BurgerReview.schema

    /// A column of the reviews, for narrowing a page (`page(_:viewer:…)`).
    static func column(_ name: some TableColumn) -> SQLColumn { SQLColumn(name, table: review) }

    /// The base query: reviews joined with their place and author. `visibleOnly` leaves out
    /// hidden reviews (lists); details pass false and decide themselves.
    /// `timeline` (SQLite) walks the reviews newest first through `burger_reviews_timeline`, which
    /// holds each review's author: for a feed of many people, a few hundred index entries find a
    /// page, where the planner's own choice (every followed author's reviews, then a sort) reads
    /// tens of thousands of rows.
    package func query(visibleOnly: Bool = true, timeline: Bool = false) -> SQLSelectBuilder {
        let r = Self.review
        let builder = sql.select()
            .columns([Column.id, Column.placeID, Column.authorID, Column.title, Column.rating, Column.text, Column.likeCount, Column.bookmarkCount,
                      Column.commentCount, Column.hiddenAt, Column.createdAt, Column.updatedAt].map { Self.column($0) })
            .column(BurgerMapStore.place(BurgerMapStore.PlaceColumn.name), as: "place_name")
            .from(timeline && sql.dialect.name == "sqlite" ? SQLQueryString("\(ident: r) INDEXED BY burger_reviews_timeline") : SQLIdentifier(r))
            .join(BurgerMapStore.places, on: BurgerMapStore.place(BurgerMapStore.PlaceColumn.id), .equal, Self.column(Column.placeID))
            .joiningPerson("author", on: Self.column(Column.authorID))
        if visibleOnly { builder.where(Self.column(Column.hiddenAt), .is, SQLLiteral.null) }
        return builder
    }

    /// One newest-first page of the reviews `narrow` selects.
    package func page(_ page: CursorPageRequest, viewer: UUID?, visibleOnly: Bool = true, timeline: Bool = false,
              _ narrow: (SQLSelectBuilder) -> SQLSelectBuilder = { $0 }) async throws -> (items: [ReviewCard], nextCursor: String?)
    {
        let builder = try narrow(query(visibleOnly: visibleOnly, timeline: timeline)).newestFirst(createdAt: Self.column(Column.createdAt), id: Self.column(Column.id), page)
        let rows = try await builder.all().map(Self.card(from:))
        let result = page.page(of: rows)
        return (try await decorate(result.items, viewer: viewer), result.nextCursor)
    }

    package func card(_ id: UUID, viewer: UUID?) async throws -> ReviewCard? {
        guard let row = try await query(visibleOnly: false).where(Self.column(Column.id), .equal, SQLBind(id)).first() else { return nil }
        return try await decorate([Self.card(from: row)], viewer: viewer).first
    }

    /// Cards for these ids, in the order given (lists ordered by something else: likes, bookmarks).
    package func cards(_ ids: [UUID], viewer: UUID?) async throws -> [ReviewCard] {
        guard !ids.isEmpty else { return [] }
        let rows = try await query().where(Self.column(Column.id), .in, SQLBind.group(ids)).all().map(Self.card(from:))
        let byID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return try await decorate(ids.compactMap { byID[$0] }, viewer: viewer)
    }

    /// Adds photos and the reader's likes and bookmarks.
    func decorate(_ cards: [ReviewCard], viewer: UUID?) async throws -> [ReviewCard] {
        guard !cards.isEmpty else { return cards }
        let photos = try await store.photos(ofReviews: cards.map(\.id))
        let withPhotos = cards.map { card in
            var card = card
            card.photos = photos[card.id] ?? []
            return card
        }
        guard let viewer else { return withPhotos }
        return try await addReactions(of: viewer, to: withPhotos)
    }

    /// The reader's likes and bookmarks on these cards.
    func addReactions(of viewer: UUID, to cards: [ReviewCard]) async throws -> [ReviewCard] {
        guard !cards.isEmpty else { return cards }
        let reactions = try await BurgerPeopleStore(database: store.database, now: store.environment.now).reactions(of: viewer, amongReviews: cards.map(\.id))
        return cards.map { card in
            var card = card
            card.likedByMe = reactions.contains("like|\(card.id)")
            card.bookmarkedByMe = reactions.contains("bookmark|\(card.id)")
            return card
        }
    }

    package static func card(from row: any SQLRow) throws -> ReviewCard {
        let author = try AccountStore.person("author", id: try row.decode(column: Column.authorID, as: UUID.self), in: row)
        return ReviewCard(
            id: try row.decode(column: Column.id, as: UUID.self),
            placeID: try row.decode(column: Column.placeID, as: UUID.self),
            placeName: try row.decode(column: "place_name", as: String.self),
            authorID: author.id,
            authorNickname: author.nickname,
            authorImageKey: author.profileImageKey,
            title: try row.decode(column: Column.title, as: String.self),
            rating: try row.decode(column: Column.rating, as: Int.self),
            text: try row.decode(column: Column.text, as: String.self),
            likeCount: try row.decode(column: Column.likeCount, as: Int.self),
            bookmarkCount: try row.decode(column: Column.bookmarkCount, as: Int.self),
            commentCount: try row.decode(column: Column.commentCount, as: Int.self),
            hidden: try row.decode(column: Column.hiddenAt, as: Date?.self) != nil,
            createdAt: try row.decode(column: Column.createdAt, as: Date.self),
            updatedAt: try row.decode(column: Column.updatedAt, as: Date?.self))
    }
}
