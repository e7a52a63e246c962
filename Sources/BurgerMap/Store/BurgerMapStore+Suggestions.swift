import Fluent
import Foundation
import Platform
import SQLKit

/// Registrations that disagreed with the place they named (`burger_place_suggestions`), kept for
/// operators; never applied.
extension BurgerMapStore {
    enum SuggestionColumn: String, TableColumn {
        case id, placeID = "place_id", suggestedBy = "suggested_by", name, address, phone, lat, lon
        case kakaoID = "kakao_id"
        /// Comma-separated: `position`, `phone`, `address`, `kakao_id_far`, `same_name_nearby`.
        case reasons
        case createdAt = "created_at"
    }

    /// A suggestion as written: every column of `burger_place_suggestions`.
    struct NewSuggestion: Encodable {
        typealias CodingKeys = SuggestionColumn
        let id: UUID, placeID: UUID, suggestedBy: UUID?, name: String, address: String, phone: String?, lat: Double, lon: Double
        let kakaoID: String?, reasons: String, createdAt: Date
    }

    static var suggestions: SQLIdentifier { SQLIdentifier(BurgerPlaceSuggestion.schema) }

    /// Keeps a registration as a suggestion for the place, unless the same person made one with the
    /// same reasons for it since `unlessSince` (a client registering in a loop cannot fill the table).
    func addSuggestion(_ registration: PlaceRegistration, for placeID: UUID, reasons: [String], unlessSince: Date) async throws {
        let repeated = try await sql.count(Self.suggestions) {
            $0.where(SQLIdentifier(SuggestionColumn.placeID), .equal, SQLBind(placeID))
                .where(SQLIdentifier(SuggestionColumn.suggestedBy), .equal, SQLBind(registration.by))
                .where(SQLIdentifier(SuggestionColumn.reasons), .equal, SQLBind(reasons.joined(separator: ",")))
                .where(SQLIdentifier(SuggestionColumn.createdAt), .greaterThan, SQLBind(unlessSince))
        }
        guard repeated == 0 else { return }
        try await sql.insert(NewSuggestion(
            id: UUID(), placeID: placeID, suggestedBy: registration.by, name: registration.name, address: registration.address,
            phone: registration.phone?.isEmpty == true ? nil : registration.phone, lat: registration.at.lat, lon: registration.at.lon,
            kakaoID: registration.kakaoID, reasons: reasons.joined(separator: ","), createdAt: environment.now().wholeMicroseconds
        ), into: BurgerPlaceSuggestion.schema)
        await announcements.moderationChanged()
    }

    /// The suggestions with the places they name, newest first.
    func suggestions(_ page: CursorPageRequest) async throws -> (items: [PlaceSuggestionRow], nextCursor: String?) {
        let column = { (name: SuggestionColumn) in SQLColumn(name, table: BurgerPlaceSuggestion.schema) }
        let columns = [SuggestionColumn.id, SuggestionColumn.placeID, SuggestionColumn.suggestedBy, SuggestionColumn.name, SuggestionColumn.address,
                       SuggestionColumn.phone, SuggestionColumn.lat, SuggestionColumn.lon, SuggestionColumn.kakaoID, SuggestionColumn.reasons,
                       SuggestionColumn.createdAt]
        let rows = try await sql.select().columns(columns.map { column($0) as any SQLExpression }).from(Self.suggestions)
            .newestFirst(createdAt: column(SuggestionColumn.createdAt), id: column(SuggestionColumn.id), page).all()
        let suggestions = try rows.map { row in
            PlaceSuggestionRow(
                id: try row.decode(column: SuggestionColumn.id, as: UUID.self), placeID: try row.decode(column: SuggestionColumn.placeID, as: UUID.self),
                suggestedBy: try row.decode(column: SuggestionColumn.suggestedBy, as: UUID?.self),
                name: try row.decode(column: SuggestionColumn.name, as: String.self), address: try row.decode(column: SuggestionColumn.address, as: String.self),
                phone: try row.decode(column: SuggestionColumn.phone, as: String?.self), lat: try row.decode(column: SuggestionColumn.lat, as: Double.self),
                lon: try row.decode(column: SuggestionColumn.lon, as: Double.self), kakaoID: try row.decode(column: SuggestionColumn.kakaoID, as: String?.self),
                reasons: try row.decode(column: SuggestionColumn.reasons, as: String.self).split(separator: ",").map(String.init),
                createdAt: try row.decode(column: SuggestionColumn.createdAt, as: Date?.self) ?? Date(timeIntervalSince1970: 0), place: nil)
        }
        let paged = page.page(of: suggestions)
        let places = Dictionary(try await self.places(paged.items.map(\.placeID)).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return (paged.items.compactMap { suggestion in places[suggestion.placeID].map { suggestion.with(place: $0) } }, paged.nextCursor)
    }
}

/// A kept suggestion with the place it names as it is now.
struct PlaceSuggestionRow: Sendable, NewestFirstRow {
    let id: UUID
    let placeID: UUID
    let suggestedBy: UUID?
    let name: String
    let address: String
    let phone: String?
    let lat: Double
    let lon: Double
    let kakaoID: String?
    let reasons: [String]
    let createdAt: Date
    let place: PlaceRow?

    func with(place: PlaceRow) -> PlaceSuggestionRow {
        PlaceSuggestionRow(id: id, placeID: placeID, suggestedBy: suggestedBy, name: name, address: address, phone: phone, lat: lat, lon: lon,
                           kakaoID: kakaoID, reasons: reasons, createdAt: createdAt, place: place)
    }
}

/// A registration that disagreed with the place it named: the position, phone or address it gave,
/// or a Kakao id some place far away holds. Kept for operators to decide on; never applied.
final class BurgerPlaceSuggestion: Model, @unchecked Sendable {
    static let schema = "burger_place_suggestions"

    @ID(key: .id) var id: UUID?
    @Parent(key: BurgerMapStore.SuggestionColumn.placeID.fieldKey) var place: BurgerPlace
    @OptionalField(key: BurgerMapStore.SuggestionColumn.suggestedBy.fieldKey) var suggestedBy: UUID?
    @Field(key: BurgerMapStore.SuggestionColumn.name.fieldKey) var name: String
    @Field(key: BurgerMapStore.SuggestionColumn.address.fieldKey) var address: String
    @OptionalField(key: BurgerMapStore.SuggestionColumn.phone.fieldKey) var phone: String?
    @Field(key: BurgerMapStore.SuggestionColumn.lat.fieldKey) var lat: Double
    @Field(key: BurgerMapStore.SuggestionColumn.lon.fieldKey) var lon: Double
    @OptionalField(key: BurgerMapStore.SuggestionColumn.kakaoID.fieldKey) var kakaoID: String?
    /// Comma-separated: `position`, `phone`, `address`, `kakao_id_far`, `same_name_nearby`.
    @Field(key: BurgerMapStore.SuggestionColumn.reasons.fieldKey) var reasons: String
    @Timestamp(key: BurgerMapStore.SuggestionColumn.createdAt.fieldKey, on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}

