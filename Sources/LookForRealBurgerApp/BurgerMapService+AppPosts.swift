import Accounts
import BurgerMap
import Fluent
import Notifications
import Platform
import SQLKit
import Vapor

/// A place as the LookForRealBurger app's shop posts carry it, read with SQLKit (the app's map asks
/// for every place at once).
struct PlaceRow: Sendable, NewestFirstRow {
    let id: UUID
    let name: String
    let address: String
    let lat: Double
    let lon: Double
    let phone: String?
    let kakaoID: String?
    let creator: PersonRow?
    let createdAt: Date
}

/// Who wrote or did something, as posts name them.
package struct PersonRow: Sendable {
    package let id: UUID
    package let nickname: String
    package let imageKey: String?

    package init(id: UUID, nickname: String, imageKey: String?) {
        self.id = id
        self.nickname = nickname
        self.imageKey = imageKey
    }
}

/// A comment with its author; also a place's review as the app's shop posts list it (the review's
/// id is the "comment's" text there).
package struct CommentRow: Sendable {
    package let id: UUID
    package let author: PersonRow
    package let text: String
    package let createdAt: Date

    package init(id: UUID, author: PersonRow, text: String, createdAt: Date) {
        self.id = id
        self.author = author
        self.text = text
        self.createdAt = createdAt
    }
}

/// What the app's posts show beside our review cards and places: everyone who liked, bookmarked or
/// marked them (the app's `likes`/`likes2` arrays hold people, not counts), each place's reviews
/// (its "comments") and each review's comments, whole. Each is one query per 500 posts.
extension BurgerMapService {
    static let idsPerQuery = StatementLimits.bindsPerStatement

    /// Places newest first; those `addedBy` one person when given.
    func placeRows(_ page: CursorPageRequest, addedBy: UUID? = nil) async throws -> (items: [PlaceRow], nextCursor: String?) {
        let p = BurgerPlace.schema
        let query = placeRowQuery()
        if let addedBy { query.where(SQLColumn("created_by", table: p), .equal, SQLBind(addedBy)) }
        let rows = try await query.newestFirst(createdAt: SQLColumn("created_at", table: p), id: SQLColumn("id", table: p), page)
            .all().map(Self.placeRow(from:))
        return page.page(of: rows)
    }

    func placeRow(_ id: UUID) async throws -> PlaceRow? {
        try await placeRowQuery().where(SQLColumn("id", table: BurgerPlace.schema), .equal, SQLBind(id)).first().map(Self.placeRow(from:))
    }

    /// Places in the order of `ids` (lists ordered by something else: marks).
    func placeRows(_ ids: [UUID]) async throws -> [PlaceRow] {
        var byID: [UUID: PlaceRow] = [:]
        for chunk in ids.chunked(Self.idsPerQuery) {
            for row in try await placeRowQuery().where(SQLColumn("id", table: BurgerPlace.schema), .in, SQLBind.group(Array(chunk))).all() {
                let place = try Self.placeRow(from: row)
                byID[place.id] = place
            }
        }
        return ids.compactMap { byID[$0] }
    }

    private func placeRowQuery() -> SQLSelectBuilder {
        let p = BurgerPlace.schema
        return database.sql.select()
            .column(SQLColumn("id", table: p)).column(SQLColumn("name", table: p)).column(SQLColumn("address", table: p))
            .column(SQLColumn("lat", table: p)).column(SQLColumn("lon", table: p)).column(SQLColumn("phone", table: p))
            .column(SQLColumn("kakao_id", table: p)).column(SQLColumn("created_at", table: p))
            .column(SQLColumn("created_by", table: p))
            .from(p)
            .joiningPerson("creator", on: SQLColumn("created_by", table: p), keepingOrphans: true)
    }

    private static func placeRow(from row: any SQLRow) throws -> PlaceRow {
        let creator = try AccountStore.person("creator", id: try row.decode(column: "created_by", as: UUID?.self), in: row)
            .map { PersonRow(id: $0.id, nickname: $0.nickname, imageKey: $0.profileImageKey) }
        return PlaceRow(id: try row.decode(column: "id", as: UUID.self), name: try row.decode(column: "name", as: String.self),
                        address: try row.decode(column: "address", as: String.self), lat: try row.decode(column: "lat", as: Double.self),
                        lon: try row.decode(column: "lon", as: Double.self), phone: try row.decode(column: "phone", as: String?.self),
                        kakaoID: try row.decode(column: "kakao_id", as: String?.self), creator: creator,
                        createdAt: try row.decode(column: "created_at", as: Date?.self) ?? Date(timeIntervalSince1970: 0))
    }

    /// Who liked (`like`) or bookmarked (`bookmark`) each review, in the order they did.
    func reactors(ofReviews ids: [UUID]) async throws -> [UUID: [BurgerReaction.Kind: [UUID]]] {
        try await people.reactors(ofReviews: ids)
    }

    /// Who marked each place "eaten" or "want", in the order they did.
    package func markers(ofPlaces ids: [UUID]) async throws -> [UUID: [BurgerMark.Kind: [UUID]]] {
        try await people.markers(ofPlaces: ids)
    }

    /// Each place's visible reviews, newest first, as the app's shop posts list them.
    func reviewsAsComments(ofPlaces ids: [UUID]) async throws -> [UUID: [CommentRow]] {
        let r = BurgerReview.schema
        var result: [UUID: [CommentRow]] = [:]
        for chunk in ids.chunked(Self.idsPerQuery) {
            let rows = try await database.sql.select()
                .column(SQLColumn("id", table: r)).column(SQLColumn("place_id", table: r)).column(SQLColumn("created_at", table: r))
                .column(SQLColumn("author_id", table: r))
                .from(r).joiningPerson("author", on: SQLColumn("author_id", table: r))
                .where(SQLColumn("place_id", table: r), .in, SQLBind.group(Array(chunk))).where(SQLColumn("hidden_at", table: r), .is, SQLLiteral.null)
                .orderBy(SQLColumn("created_at", table: r), SQLDirection.descending).orderBy(SQLColumn("id", table: r), SQLDirection.descending).all()
            for row in rows {
                let id = try row.decode(column: "id", as: UUID.self)
                result[try row.decode(column: "place_id", as: UUID.self), default: []].append(
                    CommentRow(id: id, author: try Self.author(from: row), text: ObjectID.of(id),
                               createdAt: try row.decode(column: "created_at", as: Date.self)))
            }
        }
        return result
    }

    /// Every comment of each review, newest first.
    package func comments(ofReviews ids: [UUID]) async throws -> [UUID: [CommentRow]] {
        let c = BurgerComment.schema
        var result: [UUID: [CommentRow]] = [:]
        for chunk in ids.chunked(Self.idsPerQuery) {
            let rows = try await database.sql.select()
                .column(SQLColumn("id", table: c)).column(SQLColumn("review_id", table: c)).column(SQLColumn("text", table: c))
                .column(SQLColumn("created_at", table: c)).column(SQLColumn("author_id", table: c))
                .from(c).joiningPerson("author", on: SQLColumn("author_id", table: c))
                .where(SQLColumn("review_id", table: c), .in, SQLBind.group(Array(chunk)))
                .orderBy(SQLColumn("created_at", table: c), SQLDirection.descending).orderBy(SQLColumn("id", table: c), SQLDirection.descending).all()
            for row in rows {
                result[try row.decode(column: "review_id", as: UUID.self), default: []].append(
                    CommentRow(id: try row.decode(column: "id", as: UUID.self), author: try Self.author(from: row),
                               text: try row.decode(column: "text", as: String.self), createdAt: try row.decode(column: "created_at", as: Date.self)))
            }
        }
        return result
    }

    private static func author(from row: any SQLRow) throws -> PersonRow {
        let author = try AccountStore.person("author", id: try row.decode(column: "author_id", as: UUID.self), in: row)
        return PersonRow(id: author.id, nickname: author.nickname, imageKey: author.profileImageKey)
    }

    /// Places someone marked (`eaten` is the app's `likes`, `want` its `likes2`), the latest first.
    func markedPlaces(_ kind: BurgerMark.Kind, of userID: UUID, _ page: CursorPageRequest) async throws -> (items: [PlaceRow], nextCursor: String?) {
        let marked = try await people.markedPlaces(kind, by: userID, page)
        return (try await placeRows(marked.items), marked.nextCursor)
    }
}

