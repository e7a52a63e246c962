import Accounts
import Fluent
import Platform
import SQLKit
import Vapor

/// What someone registered for a place, as they registered it.
struct PlaceRegistration: Sendable {
    let name: String
    let address: String
    let phone: String?
    let at: Coordinate
    let kakaoID: String?
    let by: UUID
}

/// A registration that disagreed with the place it named: the position, phone or address it gave,
/// or a Kakao id some place far away holds. Kept for operators to decide on; never applied.
final class BurgerPlaceSuggestion: Model, @unchecked Sendable {
    static let schema = "burger_place_suggestions"

    @ID(key: .id) var id: UUID?
    @Parent(key: "place_id") var place: BurgerPlace
    @OptionalField(key: "suggested_by") var suggestedBy: UUID?
    @Field(key: "name") var name: String
    @Field(key: "address") var address: String
    @OptionalField(key: "phone") var phone: String?
    @Field(key: "lat") var lat: Double
    @Field(key: "lon") var lon: Double
    @OptionalField(key: "kakao_id") var kakaoID: String?
    /// Comma-separated: `position`, `phone`, `address`, `kakao_id_far`.
    @Field(key: "reasons") var reasons: String
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}

    init(_ registration: PlaceRegistration, for placeID: UUID, reasons: [String]) {
        $place.id = placeID
        suggestedBy = registration.by
        name = registration.name
        address = registration.address
        phone = registration.phone?.isEmpty == true ? nil : registration.phone
        lat = registration.at.lat
        lon = registration.at.lon
        kakaoID = registration.kakaoID
        self.reasons = reasons.joined(separator: ",")
    }
}

extension BurgerMapService {
    /// One person's suggestions for one place are kept once per kind of disagreement a day: a
    /// client registering in a loop cannot fill the table.
    static let suggestionRepeatWindow: TimeInterval = 24 * 3600

    /// Keeps the registration as a suggestion if it disagrees with the place it found.
    func suggestIfDisagreeing(_ registration: PlaceRegistration, with place: BurgerPlace) async throws {
        let reasons = BurgerMapRules.disagreements(stored: (place.address, place.phone, place.coordinate),
                                                   registered: (registration.address, registration.phone, registration.at))
        guard !reasons.isEmpty else { return }
        try await suggest(registration, for: place, reasons: reasons)
    }

    func suggest(_ registration: PlaceRegistration, for place: BurgerPlace, reasons: [String]) async throws {
        let placeID = try place.requireID()
        let joined = reasons.joined(separator: ",")
        let repeated = try await BurgerPlaceSuggestion.query(on: database).filter(\.$place.$id == placeID)
            .filter(\.$suggestedBy == registration.by).filter(\.$reasons == joined)
            .filter(\.$createdAt > Date().addingTimeInterval(-Self.suggestionRepeatWindow)).count()
        guard repeated == 0 else { return }
        try await BurgerPlaceSuggestion(registration, for: placeID, reasons: reasons).create(on: database)
    }

    /// Operators read the suggestions, newest first.
    func placeSuggestions(by actor: MapActor, _ page: CursorPageRequest) async throws -> (items: [BurgerPlaceSuggestion], nextCursor: String?) {
        guard actor.isAdmin else { throw AppError.forbidden }
        return try await BurgerPlaceSuggestion.query(on: database).with(\.$place).paginate(newestFirst: \.$createdAt, page)
    }

    /// Whether an account is younger than `BurgerMapRules.unverifiedCreatorAge` (its places start unverified).
    func isYoungAccount(_ id: UUID, now: Date = Date()) async throws -> Bool {
        guard let createdAt = try await User.find(id, on: database)?.createdAt else { return true }
        return createdAt > now.addingTimeInterval(-BurgerMapRules.unverifiedCreatorAge)
    }

    /// Another account reviewed at the place: it is verified from now on.
    static func verifyPlace(_ placeID: UUID, reviewedBy reviewer: UUID, on database: any Database) async throws {
        try await database.sql.raw("""
            UPDATE \(ident: BurgerPlace.schema) SET unverified = \(bind: false)
            WHERE id = \(bind: placeID) AND unverified = \(bind: true) AND (created_by IS NULL OR created_by <> \(bind: reviewer))
            """).run()
    }
}

/// Places made by young accounts are marked (`unverified`), and registrations that disagree with
/// a place are kept (`burger_place_suggestions`).
struct AddPlaceVerification: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(BurgerPlace.schema).field("unverified", .bool, .required, .sql(.default(false))).update()
        try await database.schema(BurgerPlaceSuggestion.schema)
            .id()
            .field("place_id", .uuid, .required, .references(BurgerPlace.schema, "id", onDelete: .cascade))
            .field("suggested_by", .uuid, .references(User.schema, "id", onDelete: .setNull))
            .field("name", .string, .required)
            .field("address", .string, .required)
            .field("phone", .string)
            .field("lat", .double, .required)
            .field("lon", .double, .required)
            .field("kakao_id", .string)
            .field("reasons", .string, .required)
            .field("created_at", .datetime)
            .create()
        try await database.sql.create(index: "burger_place_suggestions_place").on(BurgerPlaceSuggestion.schema)
            .column("place_id").column("suggested_by").run()
        try await database.sql.create(index: "burger_place_suggestions_created").on(BurgerPlaceSuggestion.schema).column("created_at").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(BurgerPlaceSuggestion.schema).delete()
        try await database.schema(BurgerPlace.schema).deleteField("unverified").update()
    }

    init() {}
}
