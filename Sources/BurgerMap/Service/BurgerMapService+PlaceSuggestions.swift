import Accounts
import Fluent
import FluentSQL
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

extension BurgerMapService {
    /// One person's suggestions for one place are kept once per kind of disagreement a day: a
    /// client registering in a loop cannot fill the table.
    static let suggestionRepeatWindow: TimeInterval = 24 * 3600

    /// Keeps the registration as a suggestion if it disagrees with the place it found.
    func suggestIfDisagreeing(_ registration: PlaceRegistration, with place: PlaceRow) async throws {
        let reasons = BurgerMapRules.disagreements(stored: (place.address, place.phone, place.coordinate),
                                                   registered: (registration.address, registration.phone, registration.at))
        guard !reasons.isEmpty else { return }
        try await suggest(registration, for: place, reasons: reasons)
    }

    func suggest(_ registration: PlaceRegistration, for place: PlaceRow, reasons: [String]) async throws {
        try await store.addSuggestion(registration, for: place.id, reasons: reasons, unlessSince: environment.now().addingTimeInterval(-Self.suggestionRepeatWindow))
    }

    /// Operators read the suggestions, newest first.
    func placeSuggestions(by actor: MapActor, _ page: CursorPageRequest) async throws -> (items: [PlaceSuggestionRow], nextCursor: String?) {
        guard actor.isAdmin else { throw AppError.forbidden }
        return try await store.suggestions(page)
    }

    /// Whether an account is younger than `BurgerMapRules.unverifiedCreatorAge` (its places start unverified).
    func isYoungAccount(_ id: UUID) async throws -> Bool {
        guard let createdAt = try await AccountStore.createdAt(of: id, on: database) else { return true }
        return createdAt > environment.now().addingTimeInterval(-BurgerMapRules.unverifiedCreatorAge)
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
