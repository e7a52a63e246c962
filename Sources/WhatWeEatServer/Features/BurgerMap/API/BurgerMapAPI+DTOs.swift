import Vapor

/// A place as clients see it.
struct PlaceResponse: Content {
    let id: UUID
    let name: String
    let address: String
    let lat: Double
    let lon: Double
    @NullEncoded var phone: String?
    let reviewCount: Int
    /// The plain mean of its ratings; null before the first review.
    @NullEncoded var averageRating: Double?
    /// The Bayesian average lists are ranked by (`PlaceRanking`).
    let score: Double
    /// One photo of the place, from its reviews; null before the first.
    @NullEncoded var photoURL: String?
    /// Meters from the point of a `near` search; null otherwise.
    @NullEncoded var distanceMeters: Double?

    init(_ summary: PlaceSummary) {
        let place = summary.place
        id = place.id ?? UUID()
        name = place.name
        address = place.address
        lat = place.lat
        lon = place.lon
        phone = place.phone
        reviewCount = place.reviewCount
        averageRating = place.reviewCount > 0 ? (Double(place.ratingSum) / Double(place.reviewCount) * 100).rounded() / 100 : nil
        score = (PlaceRanking.score(ratingSum: place.ratingSum, reviewCount: place.reviewCount) * 1000).rounded() / 1000
        photoURL = nil
        distanceMeters = summary.distanceMeters.map { $0.rounded() }
    }
}

/// A map's places (`items`) or, for a crowded box, its clusters; never paged (`nextCursor` null),
/// as a box holds at most 200 pins.
struct PlacesResponse: Content {
    let items: [PlaceResponse]
    let clusters: [MapCluster]
    @NullEncoded var nextCursor: String?

    init(items: [PlaceResponse], clusters: [MapCluster]) {
        self.items = items
        self.clusters = clusters
        self.nextCursor = nil
    }
}

struct PlaceBody: Content {
    let name: String
    let address: String
    let lat: Double
    let lon: Double
    let phone: String?
}

struct PlacesQuery: Content {
    var bbox: String?
    var near: String?
    var limit: Int?
    var q: String?

    func coordinate(_ text: String) throws -> Coordinate {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let lat = parts[0], let lon = parts[1] else { throw AppError.badRequest("invalid_near") }
        do { return try Coordinate(lat: lat, lon: lon) } catch { throw BurgerMapService.appError(error) }
    }

    func nearLimit() throws -> Int {
        guard let limit else { return BurgerMapService.defaultNearLimit }
        guard (1...BurgerMapService.maxNearLimit).contains(limit) else {
            throw AppError.badRequest("invalid_limit", ["max": String(BurgerMapService.maxNearLimit)])
        }
        return limit
    }

    /// The search words, at most 40 characters; nil when none.
    func searchText() throws -> String? {
        guard let q = q?.trimmingCharacters(in: .whitespacesAndNewlines), !q.isEmpty else { return nil }
        guard q.fits(characters: 40, bytes: 160) else { throw AppError.invalid("invalid_search", ["max": "40"]) }
        return q
    }
}
