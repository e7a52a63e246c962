import Accounts
package import Fluent
package import Media
package import Notifications
package import Platform
import SQLKit
package import Vapor

/// A place with where it is, how it is rated, and (for "near" lists) how far it is.
package struct PlaceSummary: Sendable {
    package let place: PlaceIndex.Entry
    package let distanceMeters: Double?
}

/// What a map box shows: the places themselves, or, past `maxPins`, clusters of them.
package enum PlacesInBox: Sendable {
    case pins([PlaceSummary])
    case clusters([MapCluster])
}

/// Every rule of the burger map that touches storage. Handlers stay thin over this.
package struct BurgerMapService {
    /// A box with more places than this answers with clusters: a zoomed-out city map never
    /// ships ten thousand pins.
    static let maxPins = 200
    static let defaultNearLimit = 20
    static let maxNearLimit = 100

    package let database: any Database
    /// Places, reviews, photos, comments, reports and suggestions: every statement about them.
    package let store: BurgerMapStore
    package let inbox: NotificationStore
    /// The map's clock, bus, log, files, memories and budgets.
    let environment: BurgerMapEnvironment

    package var files: any FileStorage { environment.files }
    package var fileReferences: FileReferences { environment.fileReferences }
    package var placeIndex: PlaceIndex { environment.placeIndex }
    package var limits: BurgerMapLimits { environment.limits }
    package var quota: StorageQuota { environment.quota }
    var keptPlaceDetails: KeptValues<PlaceDetail> { environment.keptPlaceDetails }
    var keptReviewCards: KeptValues<ReviewCard> { environment.keptReviewCards }
    var keptProfileCounts: KeptValues<MapProfileCounts> { environment.keptProfileCounts }

    package init(database: any Database, application: Application) {
        let environment = application.burgerMapEnvironment
        self.database = database
        self.environment = environment
        self.store = BurgerMapStore(database: database, environment: environment)
        self.inbox = NotificationStore(database: database, application: application)
    }

    package init(request: Request) {
        self.init(database: request.db, application: request.application)
    }

    package var cards: ReviewCards { ReviewCards(store: store) }
    /// Follows, marks and reactions.
    package var people: BurgerPeopleStore { BurgerPeopleStore(database: database, now: store.environment.now, announcements: store.announcements) }

    // MARK: Places

    package func place(_ id: UUID) async throws -> PlaceRow {
        guard let place = try await store.place(id) else { throw AppError.notFound("place_not_found") }
        return place
    }

    /// Registers a place, or finds the one it is: by Kakao id (the LookForRealBurger app's key)
    /// within `kakaoMatchMeters` (200 m) of that place, then by a name that matches
    /// (`BurgerMapRules.matchKey`) within `samePlaceMeters` (20 m), where the place found takes the
    /// Kakao id if it had none. A namesake farther away but within `namesakeMeters` (50 m) is not
    /// this place: the registration is a place of its own, and operators get a suggestion
    /// (`same_name_nearby`) that the two may be one. A registration never changes a stored place:
    /// one that disagrees with it (position, phone, address), or names a Kakao id held far away,
    /// is kept as a suggestion for operators (`placeSuggestions`). A place made by an account
    /// younger than three days is unverified until another account reviews there. `addressKnown`
    /// false lets the address be empty.
    package func addPlace(name rawName: String, address rawAddress: String, at point: Coordinate, phone rawPhone: String?,
                  kakaoID rawKakaoID: String? = nil, addressKnown: Bool = true, by userID: UUID) async throws -> (place: PlaceRow, created: Bool)
    {
        let name = rawName.trimmingCharacters(in: .whitespacesAndNewlines)
        let address = rawAddress.trimmingCharacters(in: .whitespacesAndNewlines)
        let phone = rawPhone?.trimmingCharacters(in: .whitespaces)
        let problem: BurgerMapProblem?
        do { try BurgerMapRules.checkPlace(name: name, address: address, phone: phone, addressKnown: addressKnown); problem = nil } catch { problem = error }
        // Only a registration that passes the place's rules is kept as a suggestion.
        let registration = problem == nil ? PlaceRegistration(name: name, address: address, phone: phone, at: point, kakaoID: rawKakaoID, by: userID) : nil
        var kakaoID = rawKakaoID
        if let rawKakaoID, let holder = try await store.place(kakaoID: rawKakaoID) {
            if holder.coordinate.distanceMeters(to: point) <= BurgerMapRules.kakaoMatchMeters {
                if let registration { try await suggestIfDisagreeing(registration, with: holder) }
                return (holder, false)
            }
            // Registered far from here first: this registration is a place of its own, without the id.
            if let registration { try await suggest(registration, for: holder, reasons: ["kakao_id_far"]) }
            kakaoID = nil
        }
        guard let registration else { throw Self.appError(problem ?? .invalidPlaceName) }
        let namesakes = try await namesakes(of: name, near: point)
        if let existing = namesakes.first, BurgerMapRules.isSamePlace((name, point), (existing.name, existing.coordinate)) {
            if let kakaoID, existing.kakaoID == nil {
                // Conditional, so a place keeps the first id it was given; a second place can't take
                // an id another holds (unique index), and then it stays without one.
                try await store.attachKakaoID(kakaoID, to: existing.id)
            }
            try await suggestIfDisagreeing(registration, with: existing)
            return (existing, false)
        }
        do {
            let place = try await store.addPlace(name: name, address: address, at: point, phone: phone?.isEmpty == true ? nil : phone, kakaoID: kakaoID,
                                                 unverified: try await isYoungAccount(userID), by: userID)
            // Too far to be handed over, close enough that the two may be one shop: operators decide.
            if let namesake = namesakes.first { try await suggest(registration, for: namesake, reasons: ["same_name_nearby"]) }
            return (place, true)
        } catch {
            // The app registered the same Kakao place twice at once: the first is the place.
            guard (error as? any DatabaseError)?.isConstraintFailure == true, let kakaoID,
                  let existing = try await store.place(kakaoID: kakaoID) else { throw error }
            return (existing, false)
        }
    }

    /// The places of this name (`matchKey`) within `namesakeMeters`, nearest first: the first is
    /// this place when it is within `samePlaceMeters`, else a namesake for operators to compare.
    private func namesakes(of name: String, near point: Coordinate) async throws -> [PlaceRow] {
        // Every place of the box (a handful), compared by the looser match key.
        let box = point.box(radiusMeters: BurgerMapRules.namesakeMeters)
        return try await store.places(in: box, matching: nil)
            .filter { BurgerMapRules.isSamePlace((name, point), ($0.name, $0.coordinate)) || BurgerMapRules.isNearbyNamesake((name, point), ($0.name, $0.coordinate)) }
            .sorted { $0.coordinate.distanceMeters(to: point) < $1.coordinate.distanceMeters(to: point) }
    }

    /// Our places within `meters` of `point`, nearest first, at most `limit` (from memory): what
    /// the menu game lists first for a burger menu.
    package func nearest(to point: Coordinate, within meters: Double, limit: Int) async throws -> [(place: PlaceIndex.Entry, meters: Double)] {
        let index = try await loadedIndex()
        var found: [(place: PlaceIndex.Entry, meters: Double)] = []
        for entry in index.entries(in: point.box(radiusMeters: meters)) {
            let distance = Coordinate(unchecked: entry.lat, entry.lon).distanceMeters(to: point)
            if distance <= meters { found.append((entry, distance)) }
        }
        found.sort { $0.meters < $1.meters }
        return Array(found.prefix(limit))
    }

    /// A place's page on this site.
    package static func placePath(_ id: UUID) -> String { MapPath.place(id) }

    /// The places in a map box, best ranked first, or their clusters when there are too many.
    /// Without search words the answer comes from memory (`PlaceIndex`).
    package func places(in box: BoundingBox, matching words: String?) async throws -> PlacesInBox {
        guard let query = BurgerMapRules.searchWords(words) else {
            let index = try await loadedIndex()
            if index.count(in: box, upTo: Self.maxPins) > Self.maxPins { return .clusters(index.clusters(in: box)) }
            return .pins(index.entries(in: box).sorted { $0.score > $1.score }.map { PlaceSummary(place: $0, distanceMeters: nil) })
        }
        // One query in the common case: up to one more than the pins a box may show.
        let firstRows = try await store.places(in: box, matching: query, limit: Self.maxPins + 1)
        if firstRows.count > Self.maxPins {
            return .clusters(ClusterGrid(box: box).clusters(of: try await store.points(in: box, matching: query)))
        }
        return .pins(try await summaries(firstRows).sorted { $0.place.score > $1.place.score })
    }

    /// The places nearest a point, nearest first: looked for in widening boxes until enough are found.
    package func places(near point: Coordinate, limit: Int, matching words: String?) async throws -> [PlaceSummary] {
        let query = BurgerMapRules.searchWords(words)
        var found: [PlaceIndex.Entry] = []
        for radius in [2_000.0, 20_000, 200_000, 2_000_000] {
            let box = point.box(radiusMeters: radius)
            if query == nil {
                found = try await loadedIndex().entries(in: box)
            } else {
                found = try await summaries(try await store.places(in: box, matching: query)).map(\.place)
            }
            if found.count >= limit { break }
        }
        return found.map { PlaceSummary(place: $0, distanceMeters: point.distanceMeters(to: $0.coordinate)) }
            .sorted { ($0.distanceMeters ?? 0) < ($1.distanceMeters ?? 0) }
            .prefix(limit).map { $0 }
    }

    /// Places read from the database as lists show them, with their cover photos.
    func summaries(_ places: [PlaceRow]) async throws -> [PlaceSummary] {
        let covers = try await store.coverURLs(of: places)
        return places.map { PlaceSummary(place: PlaceIndex.Entry($0, coverURL: covers[$0.id]), distanceMeters: nil) }
    }

    /// The index, read from the database on first use.
    package func loadedIndex() async throws -> PlaceIndex {
        try await placeIndex.ensureLoaded(from: store)
        return placeIndex
    }

    /// Places whose name or address holds the text, best ranked first (`PlaceRanking`), paged
    /// by (rank, id) so the pages stay in step while ratings change little.
    package func search(_ text: String, _ page: CursorPageRequest) async throws -> (items: [PlaceSummary], nextCursor: String?) {
        let found = try await store.searchRanked(BurgerMapRules.searchWords(text), page)
        return (try await summaries(found.items), found.nextCursor)
    }

    package static func appError(_ problem: BurgerMapProblem) -> AppError {
        switch problem {
        case .invalidPlaceName: return .invalid("invalid_place_name")
        case .invalidAddress: return .invalid("invalid_place_address")
        case .invalidPhone: return .invalid("invalid_place_phone")
        case .invalidRating: return .invalid("invalid_rating")
        case .invalidTitle: return .invalid("invalid_review_title")
        case .invalidText: return .invalid("invalid_review_text", ["max": String(BurgerMapRules.maxTextCharacters)])
        case .invalidPhotoCount: return .invalid("invalid_photo_count")
        case .duplicatePhoto: return .invalid("duplicate_photo")
        case .invalidComment: return .invalid("invalid_comment", ["max": String(BurgerMapRules.maxCommentCharacters)])
        case .invalidReportReason: return .invalid("invalid_report_reason", ["max": String(BurgerMapRules.maxReasonCharacters)])
        }
    }

    package static func appError(_ problem: GeoProblem) -> AppError {
        switch problem {
        case .latitudeOutOfRange, .longitudeOutOfRange: return .invalid("invalid_coordinate")
        case .malformedBox: return .badRequest("invalid_bbox")
        case .emptyBox: return .invalid("empty_bbox")
        case .boxTooLarge: return .invalid("bbox_too_large", ["max": String(Int(BoundingBox.maxSpanDegrees))])
        }
    }
}

/// What one account may write on the map in a while: every write a person can repeat has a rate
/// (on PostgreSQL counted in the shared table, so instances share them).
package struct BurgerMapLimits: Sendable {
    /// Reviews: more than a busy food critic, fewer than a script.
    package let reviews: RateLimiter
    /// Photo files uploaded (each file of an upload counts).
    package let photos: RateLimiter
    /// Comments: a lively conversation, not a flood of notifications.
    package let comments: RateLimiter
    /// Reports of reviews.
    package let reports: RateLimiter

    package init(shared: SharedBudgets?) {
        reviews = RateLimiter(name: "burger_reviews", limit: 20, window: 3600, shared: shared)
        photos = RateLimiter(name: "burger_photos", limit: 100, window: 3600, shared: shared)
        comments = RateLimiter(name: "burger_comments", limit: 10, window: 60, shared: shared)
        reports = RateLimiter(name: "burger_reports", limit: 10, window: 3600, shared: shared)
    }
}
