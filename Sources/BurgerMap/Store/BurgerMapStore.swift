import Accounts
package import Fluent
import Media
package import Platform
import SQLKit
import Vapor

/// The one owner of the map's places and what is written about them — `burger_places`,
/// `burger_reviews`, `burger_photos`, `burger_comments`, `burger_reports` and
/// `burger_place_suggestions` — the only code that reads or writes them. It names each column once
/// (`PlaceColumn`, `ReviewColumn`, …: the models' keys and every statement), reads rows into plain
/// values (`PlaceRow`, `ReviewRow`, `PhotoRow`, `CommentRow`, `ReviewCard`), and keeps the Fluent
/// models to itself for the inserts that want them.
///
/// Every write announces what it changed (`MapAnnouncements`, `+Announcements.swift`): the place index (pins, lists),
/// the kept answers and details, and the other instances follow the store, never a caller. A write
/// of several statements runs in one transaction and is announced once it committed.
///
/// `BurgerMapService` holds the rules (who may, how many, what a draft must say) and calls the
/// store. Follows, marks and reactions are `BurgerPeopleStore`'s.
package struct BurgerMapStore {
    package let database: any Database
    let environment: BurgerMapEnvironment
    let announcements: MapAnnouncements
    var files: any FileStorage { environment.files }

    package init(database: any Database, environment: BurgerMapEnvironment) {
        self.database = database
        self.environment = environment
        self.announcements = MapAnnouncements(environment)
    }

    var sql: any SQLDatabase { database.sql }

    enum PlaceColumn: String, TableColumn {
        case id, name
        /// `BurgerMapRules.nameKey(name)`.
        case nameKey = "name_key"
        case address, lat, lon, phone, createdBy = "created_by", reviewCount = "review_count"
        case ratingSum = "rating_sum", coverPhotoID = "cover_photo_id", kakaoID = "kakao_id", unverified
        case createdAt = "created_at"
    }

    static var places: SQLIdentifier { SQLIdentifier(BurgerPlace.schema) }
    /// A new place as written: every column of `burger_places`.
    struct NewPlace: Encodable {
        typealias CodingKeys = PlaceColumn
        let id: UUID, name: String, nameKey: String, address: String, lat: Double, lon: Double, phone: String?, createdBy: UUID?
        let reviewCount: Int, ratingSum: Int, coverPhotoID: UUID?, kakaoID: String?, unverified: Bool, createdAt: Date
    }

    static func place(_ column: some TableColumn) -> SQLColumn { SQLColumn(column, table: BurgerPlace.schema) }

    // MARK: Reading places

    /// Every column a `PlaceRow` holds, qualified by the places table.
    private static var placeColumns: [any SQLExpression] {
        [PlaceColumn.id, PlaceColumn.name, PlaceColumn.address, PlaceColumn.lat, PlaceColumn.lon, PlaceColumn.phone, PlaceColumn.createdBy,
         PlaceColumn.reviewCount, PlaceColumn.ratingSum, PlaceColumn.coverPhotoID, PlaceColumn.kakaoID, PlaceColumn.unverified,
         PlaceColumn.createdAt].map { place($0) }
    }

    /// Places with every column.
    func placeQuery() -> SQLSelectBuilder {
        sql.select().columns(Self.placeColumns).from(Self.places)
    }

    static func placeRow(from row: any SQLRow) throws -> PlaceRow {
        PlaceRow(
            id: try row.decode(column: PlaceColumn.id, as: UUID.self), name: try row.decode(column: PlaceColumn.name, as: String.self),
            address: try row.decode(column: PlaceColumn.address, as: String.self), lat: try row.decode(column: PlaceColumn.lat, as: Double.self),
            lon: try row.decode(column: PlaceColumn.lon, as: Double.self), phone: try row.decode(column: PlaceColumn.phone, as: String?.self),
            kakaoID: try row.decode(column: PlaceColumn.kakaoID, as: String?.self), createdBy: try row.decode(column: PlaceColumn.createdBy, as: UUID?.self),
            reviewCount: try row.decode(column: PlaceColumn.reviewCount, as: Int.self), ratingSum: try row.decode(column: PlaceColumn.ratingSum, as: Int.self),
            coverPhotoID: try row.decode(column: PlaceColumn.coverPhotoID, as: UUID?.self),
            unverified: try row.decode(column: PlaceColumn.unverified, as: Bool.self),
            createdAt: try row.decode(column: PlaceColumn.createdAt, as: Date?.self) ?? Date(timeIntervalSince1970: 0))
    }

    package func place(_ id: UUID) async throws -> PlaceRow? {
        try await placeQuery().where(Self.place(PlaceColumn.id), .equal, SQLBind(id)).first().map { try Self.placeRow(from: $0) }
    }

    func place(kakaoID: String) async throws -> PlaceRow? {
        try await placeQuery().where(Self.place(PlaceColumn.kakaoID), .equal, SQLBind(kakaoID)).first().map { try Self.placeRow(from: $0) }
    }

    /// The place whose id begins with the LookForRealBurger app's 24-hex `objectID` (`ObjectID`).
    package func placeID(objectID: String) async throws -> UUID? {
        try await id(in: Self.places, objectID: objectID)
    }

    /// The row of `table` whose id begins with `objectID`; nil when there is none (or it is not one).
    func id(in table: SQLIdentifier, objectID: String) async throws -> UUID? {
        guard let (lower, upper) = ObjectID.range(objectID) else { return nil }
        return try await sql.select().column("id").from(table).where("id", .greaterThanOrEqual, SQLBind(lower))
            .where("id", .lessThanOrEqual, SQLBind(upper)).limit(1).first()?.decode(column: "id", as: UUID.self)
    }

    /// Places in these ids' order (lists ordered by something else: marks).
    package func places(_ ids: [UUID]) async throws -> [PlaceRow] {
        try await inOrder(ids) { chunk in
            try await placeQuery().where(Self.place(PlaceColumn.id), .in, SQLBind.group(chunk)).all().map(Self.placeRow(from:))
        }
    }

    /// The rows for `ids`, read a statement's worth of ids at a time, in the order of `ids`.
    private func inOrder<Row: NewestFirstRow>(_ ids: [UUID], _ read: ([UUID]) async throws -> [Row]) async throws -> [Row] {
        var byID: [UUID: Row] = [:]
        for chunk in ids.chunked(StatementLimits.bindsPerStatement) {
            for row in try await read(Array(chunk)) { byID[row.id] = row }
        }
        return ids.compactMap { byID[$0] }
    }

    // MARK: Places as the LookForRealBurger app lists them

    /// Places with only what a shop post carries, and who added each (nil for the seeded): the
    /// app's map reads every place at once, and each column more is a decode per place (with all
    /// of `PlaceRow`'s columns, its first read after a write took 190 ms at 10,000 places, not 115).
    private func listedPlaceQuery() -> SQLSelectBuilder {
        sql.select()
            .columns([PlaceColumn.id, PlaceColumn.name, PlaceColumn.address, PlaceColumn.lat, PlaceColumn.lon, PlaceColumn.phone,
                      PlaceColumn.kakaoID, PlaceColumn.createdAt, PlaceColumn.createdBy].map { Self.place($0) })
            .from(Self.places).joiningPerson("creator", on: Self.place(PlaceColumn.createdBy), keepingOrphans: true)
    }

    private static func listedPlace(from row: any SQLRow) throws -> ListedPlace {
        ListedPlace(
            id: try row.decode(column: PlaceColumn.id, as: UUID.self), name: try row.decode(column: PlaceColumn.name, as: String.self),
            address: try row.decode(column: PlaceColumn.address, as: String.self), lat: try row.decode(column: PlaceColumn.lat, as: Double.self),
            lon: try row.decode(column: PlaceColumn.lon, as: Double.self), phone: try row.decode(column: PlaceColumn.phone, as: String?.self),
            kakaoID: try row.decode(column: PlaceColumn.kakaoID, as: String?.self),
            creator: try AccountStore.person("creator", id: try row.decode(column: PlaceColumn.createdBy, as: UUID?.self), in: row).map(PersonRow.init),
            createdAt: try row.decode(column: PlaceColumn.createdAt, as: Date?.self) ?? Date(timeIntervalSince1970: 0))
    }

    /// Places newest first; those `addedBy` one person when given.
    package func listedPlaces(_ page: CursorPageRequest, addedBy: UUID? = nil) async throws -> (items: [ListedPlace], nextCursor: String?) {
        let query = listedPlaceQuery()
        if let addedBy { query.where(Self.place(PlaceColumn.createdBy), .equal, SQLBind(addedBy)) }
        let rows = try await query.newestFirst(createdAt: Self.place(PlaceColumn.createdAt), id: Self.place(PlaceColumn.id), page)
            .all().map(Self.listedPlace(from:))
        return page.page(of: rows)
    }

    /// Places in these ids' order.
    package func listedPlaces(_ ids: [UUID]) async throws -> [ListedPlace] {
        try await inOrder(ids) { chunk in
            try await listedPlaceQuery().where(Self.place(PlaceColumn.id), .in, SQLBind.group(chunk)).all().map(Self.listedPlace(from:))
        }
    }

    /// The places of a box whose name or address holds `text` (every place of it without), at most
    /// `limit`.
    func places(in box: BoundingBox, matching text: String?, limit: Int? = nil) async throws -> [PlaceRow] {
        let query = within(box, placeQuery(), matching: text)
        if let limit { query.limit(limit) }
        return try await query.all().map { try Self.placeRow(from: $0) }
    }

    /// Where the places of a box holding `text` are (a cluster map's points).
    func points(in box: BoundingBox, matching text: String?) async throws -> [Coordinate] {
        let query = within(box, sql.select().column(Self.place(PlaceColumn.lat)).column(Self.place(PlaceColumn.lon)).from(Self.places), matching: text)
        return try await query.all().map {
            Coordinate(unchecked: try $0.decode(column: PlaceColumn.lat, as: Double.self), try $0.decode(column: PlaceColumn.lon, as: Double.self))
        }
    }

    private func within(_ box: BoundingBox, _ query: SQLSelectBuilder, matching text: String?) -> SQLSelectBuilder {
        query.where(Self.place(PlaceColumn.lat), .greaterThanOrEqual, SQLBind(box.minLat)).where(Self.place(PlaceColumn.lat), .lessThanOrEqual, SQLBind(box.maxLat))
            .where(Self.place(PlaceColumn.lon), .greaterThanOrEqual, SQLBind(box.minLon)).where(Self.place(PlaceColumn.lon), .lessThanOrEqual, SQLBind(box.maxLon))
        if let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
            query.where(PlaceSearch.predicate(text, on: sql))
        }
        return query
    }

    /// Places whose name or address holds the text, best ranked first (`PlaceRanking`), paged by
    /// (rank, id) so the pages stay in step while ratings change little.
    /// Without `text`, every place, ranked the same way.
    func searchRanked(_ text: String?, _ page: CursorPageRequest) async throws -> (items: [PlaceRow], nextCursor: String?) {
        if page.cursor != nil && page.orderedCursor == nil { throw AppError.badRequest("invalid_cursor") }
        let rank = SQLQueryString("""
            CAST((\(literal: PlaceRanking.priorMean * PlaceRanking.priorWeight) + \(ident: PlaceColumn.ratingSum)) * 1000000.0 \
            / (\(literal: PlaceRanking.priorWeight) + \(ident: PlaceColumn.reviewCount)) AS BIGINT)
            """)
        let id = Self.place(PlaceColumn.id)
        let query = placeQuery().column(rank, as: "rank")
        if let text { query.where(PlaceSearch.predicate(text, on: sql)) }
        if let cursor = page.orderedCursor {
            query.where(group: { group in
                group.where(rank, .lessThan, SQLBind(cursor.position))
                    .orWhere(group: { $0.where(rank, .equal, SQLBind(cursor.position)).where(id, .lessThan, SQLBind(cursor.id)) })
            })
        }
        let rows = try await query.orderBy(SQLOrderBy(expression: rank, direction: SQLDirection.descending))
            .orderBy(SQLOrderBy(expression: id, direction: SQLDirection.descending)).limit(page.limit + 1).all()
        let places = try rows.prefix(page.limit).map { (place: try Self.placeRow(from: $0), rank: try $0.decode(column: "rank", as: Int.self)) }
        var next: String?
        if rows.count > page.limit, let last = places.last { next = OrderedPageCursor(position: last.rank, id: last.place.id).encoded }
        return (places.map(\.place), next)
    }

    /// The ids of the places `person` added, with when.
    func placesAdded(by person: UUID) async throws -> [(id: UUID, createdAt: Date?)] {
        try await sql.select().column(PlaceColumn.id).column(PlaceColumn.createdAt).from(Self.places)
            .where(SQLIdentifier(PlaceColumn.createdBy), .equal, SQLBind(person)).all()
            .map { (try $0.decode(column: PlaceColumn.id, as: UUID.self), try $0.decode(column: PlaceColumn.createdAt, as: Date?.self)) }
    }

    /// The place index's entries: every place (or the one `only` names) with its cover's URL.
    func indexEntries(only id: UUID?) async throws -> [PlaceIndex.Entry] {
        let photos = BurgerPhoto.schema
        let query = sql.select()
            .columns([PlaceColumn.id, PlaceColumn.name, PlaceColumn.address, PlaceColumn.lat, PlaceColumn.lon, PlaceColumn.phone,
                      PlaceColumn.reviewCount, PlaceColumn.ratingSum, PlaceColumn.coverPhotoID, PlaceColumn.unverified].map { Self.place($0) })
            .column(SQLColumn(PhotoColumn.fileKey, table: photos), as: "cover_file_key")
            .from(Self.places)
            .join(photos, method: SQLJoinMethod.left, on: SQLColumn(PhotoColumn.id, table: photos), .equal, Self.place(PlaceColumn.coverPhotoID))
        if let id { query.where(Self.place(PlaceColumn.id), .equal, SQLBind(id)) }
        return try await query.all().map { row in
            let cover = try row.decode(column: PlaceColumn.coverPhotoID, as: UUID?.self)
            return PlaceIndex.Entry(
                id: try row.decode(column: PlaceColumn.id, as: UUID.self), name: try row.decode(column: PlaceColumn.name, as: String.self),
                address: try row.decode(column: PlaceColumn.address, as: String.self), lat: try row.decode(column: PlaceColumn.lat, as: Double.self),
                lon: try row.decode(column: PlaceColumn.lon, as: Double.self), phone: try row.decode(column: PlaceColumn.phone, as: String?.self),
                reviewCount: try row.decode(column: PlaceColumn.reviewCount, as: Int.self),
                ratingSum: try row.decode(column: PlaceColumn.ratingSum, as: Int.self),
                coverURL: try cover.map { photoURL(fileKey: try row.decode(column: "cover_file_key", as: String?.self), id: $0) },
                unverified: try row.decode(column: PlaceColumn.unverified, as: Bool.self))
        }
    }

    // MARK: Writing places

    /// Writes a new place; a constraint failure (its Kakao id taken meanwhile) is the caller's to read.
    func addPlace(name: String, address: String, at point: Coordinate, phone: String?, kakaoID: String?, unverified: Bool,
                  by userID: UUID?, id: UUID? = nil) async throws -> PlaceRow
    {
        let placeID = id ?? UUID()
        try await sql.insert(NewPlace(id: placeID, name: name, nameKey: BurgerMapRules.nameKey(name), address: address, lat: point.lat, lon: point.lon,
                                         phone: phone, createdBy: userID, reviewCount: 0, ratingSum: 0, coverPhotoID: nil, kakaoID: kakaoID,
                                         unverified: unverified, createdAt: environment.now().wholeMicroseconds), into: BurgerPlace.schema)
        await announcements.placesChanged([placeID], store: self)
        guard let row = try await self.place(placeID) else { throw AppError.notFound("place_not_found") }
        return row
    }

    /// Gives a place the Kakao id the app knows it by, if it has none yet and no other place holds it.
    func attachKakaoID(_ kakaoID: String, to placeID: UUID) async throws {
        do {
            try await sql.update(Self.places).set(SQLIdentifier(PlaceColumn.kakaoID), to: SQLBind(kakaoID))
                .where(SQLIdentifier(PlaceColumn.id), .equal, SQLBind(placeID)).where(SQLIdentifier(PlaceColumn.kakaoID), .is, SQLLiteral.null).run()
        } catch let error as any DatabaseError where error.isConstraintFailure {}
        await announcements.contentChanged(places: [placeID])
    }

    /// Moves a place's review count and rating sum (inside a review's transaction).
    func adjustPlace(_ placeID: UUID, reviews: Int, ratings: Int) async throws {
        let count = SQLIdentifier(PlaceColumn.reviewCount), sum = SQLIdentifier(PlaceColumn.ratingSum)
        try await sql.update(Self.places)
            .set(count, to: SQLBinaryExpression(count, .add, SQLBind(reviews)))
            .set(sum, to: SQLBinaryExpression(sum, .add, SQLBind(ratings)))
            .where(SQLIdentifier(PlaceColumn.id), .equal, SQLBind(placeID)).run()
    }

    /// Another account reviewed at the place: it is verified from now on.
    func verifyPlace(_ placeID: UUID, reviewedBy reviewer: UUID) async throws {
        try await sql.raw("""
            UPDATE \(Self.places) SET \(ident: PlaceColumn.unverified) = \(bind: false)
            WHERE \(ident: PlaceColumn.id) = \(bind: placeID) AND \(ident: PlaceColumn.unverified) = \(bind: true)
            AND (\(ident: PlaceColumn.createdBy) IS NULL OR \(ident: PlaceColumn.createdBy) <> \(bind: reviewer))
            """).run()
    }

    func setCover(of placeID: UUID, to photoID: UUID?) async throws {
        try await sql.update(Self.places).set(SQLIdentifier(PlaceColumn.coverPhotoID), to: photoID.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
            .where(SQLIdentifier(PlaceColumn.id), .equal, SQLBind(placeID)).run()
    }

    /// The place's cover becomes the first photo of its newest visible review; the place is announced
    /// (with the counts its caller has just moved).
    func refreshCover(of placeID: UUID) async throws {
        let r = ReviewCards.review, p = BurgerPhoto.schema
        let cover = try await sql.select().column(SQLColumn(PhotoColumn.id, table: p)).from(p)
            .join(r, on: SQLColumn(ReviewColumn.id, table: r), .equal, SQLColumn(PhotoColumn.reviewID, table: p))
            .where(SQLColumn(ReviewColumn.placeID, table: r), .equal, SQLBind(placeID)).where(SQLColumn(ReviewColumn.hiddenAt, table: r), .is, SQLLiteral.null)
            .orderBy(SQLColumn(ReviewColumn.createdAt, table: r), SQLDirection.descending).orderBy(SQLColumn(ReviewColumn.id, table: r), SQLDirection.descending)
            .orderBy(SQLColumn(PhotoColumn.position, table: p)).limit(1).first()?.decode(column: PhotoColumn.id, as: UUID.self)
        try await setCover(of: placeID, to: cover)
        await announcements.placesChanged([placeID], store: self)
    }

    /// Runs `work` in one transaction with a store on it; what it changed is announced once it
    /// committed (nothing, when it rolled back).
    func transaction<T: Sendable>(_ work: @escaping @Sendable (BurgerMapStore) async throws -> T) async throws -> T {
        let announcements = announcements, environment = environment
        // What an attempt changed is collected per attempt: one rolled back and tried again tells nothing.
        let (result, changes) = try await database.writeTransaction(recording: MapAnnouncements.Changes()) { transaction, log in
            try await work(BurgerMapStore(database: transaction, environment: environment, announcements: announcements.deferring(into: log)))
        }
        await announcements.announce(changes, store: self)
        return result
    }

    private init(database: any Database, environment: BurgerMapEnvironment, announcements: MapAnnouncements) {
        self.database = database
        self.environment = environment
        self.announcements = announcements
    }

    /// Where a photo is seen: its file, or its generated artwork.
    func photoURL(fileKey: String?, id: UUID) -> String {
        BurgerMapService.photoURL(fileKey: fileKey, id: id, files: files)
    }
}

/// A place as the store reads it.
package struct PlaceRow: Sendable, NewestFirstRow {
    package let id: UUID
    package let name: String
    package let address: String
    package let lat: Double
    package let lon: Double
    package let phone: String?
    /// The Kakao place id the LookForRealBurger app registered it under.
    package let kakaoID: String?
    let createdBy: UUID?
    package let reviewCount: Int
    let ratingSum: Int
    let coverPhotoID: UUID?
    package let unverified: Bool
    package let createdAt: Date

    package var coordinate: Coordinate { Coordinate(unchecked: lat, lon) }
}

/// A place as the LookForRealBurger app's shop posts carry it (`listedPlaces`).
package struct ListedPlace: Sendable, NewestFirstRow {
    package let id: UUID
    package let name: String
    package let address: String
    package let lat: Double
    package let lon: Double
    package let phone: String?
    package let kakaoID: String?
    /// Who added it; nil for the seeded catalog's places.
    package let creator: PersonRow?
    package let createdAt: Date
}

/// Who wrote or did something, as lists name them.
package struct PersonRow: Sendable {
    package let id: UUID
    package let nickname: String
    package let imageKey: String?

    package init(id: UUID, nickname: String, imageKey: String?) {
        self.id = id
        self.nickname = nickname
        self.imageKey = imageKey
    }

    init(_ person: AccountStore.JoinedPerson) {
        self.init(id: person.id, nickname: person.nickname, imageKey: person.profileImageKey)
    }
}
