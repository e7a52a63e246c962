import Fluent
import Foundation

/// A burger place on the map. Reviews keep `reviewCount` and `ratingSum` current, so lists and
/// rankings read them without counting rows.
final class BurgerPlace: Model, @unchecked Sendable {
    static let schema = "burger_places"

    @ID(key: .id) var id: UUID?
    @Field(key: "name") var name: String
    /// `BurgerMapRules.nameKey(name)`: how two registrations of one place are recognized.
    @Field(key: "name_key") var nameKey: String
    @Field(key: "address") var address: String
    @Field(key: "lat") var lat: Double
    @Field(key: "lon") var lon: Double
    @OptionalField(key: "phone") var phone: String?
    @OptionalParent(key: "created_by") var createdBy: User?
    @Field(key: "review_count") var reviewCount: Int
    @Field(key: "rating_sum") var ratingSum: Int
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}

    init(name: String, address: String, at point: Coordinate, phone: String?, createdBy: UUID?) {
        self.name = name
        self.nameKey = BurgerMapRules.nameKey(name)
        self.address = address
        self.lat = point.lat
        self.lon = point.lon
        self.phone = phone
        self.$createdBy.id = createdBy
        self.reviewCount = 0
        self.ratingSum = 0
    }

    var coordinate: Coordinate { Coordinate(unchecked: lat, lon) }
}
