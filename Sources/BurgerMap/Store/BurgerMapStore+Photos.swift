package import Fluent
import Foundation
import Platform
import SQLKit

/// Photos (`burger_photos`): uploaded on their own, taken by a review (`attach`), deleted with it
/// or when no review took them in time.
extension BurgerMapStore {
    enum PhotoColumn: String, TableColumn {
        case id, ownerID = "owner_id", reviewID = "review_id"
        /// Order within its review (0 first).
        case position
        case fileKey = "file_key", artwork, width, height, createdAt = "created_at"
    }

    /// A new photo as written: every column of `burger_photos`.
    struct NewPhoto: Encodable {
        typealias CodingKeys = PhotoColumn
        let id: UUID, ownerID: UUID, reviewID: UUID?, position: Int, fileKey: String?, artwork: String?, width: Int, height: Int, createdAt: Date
    }

    static var photos: SQLIdentifier { SQLIdentifier(BurgerPhoto.schema) }

    private static var photoColumns: [any SQLExpression] {
        [PhotoColumn.id, PhotoColumn.ownerID, PhotoColumn.reviewID, PhotoColumn.fileKey, PhotoColumn.artwork, PhotoColumn.width,
         PhotoColumn.height, PhotoColumn.position].map { SQLIdentifier($0) }
    }

    static func photo(from row: any SQLRow) throws -> PhotoRow {
        PhotoRow(id: try row.decode(column: PhotoColumn.id, as: UUID.self), ownerID: try row.decode(column: PhotoColumn.ownerID, as: UUID.self),
                 reviewID: try row.decode(column: PhotoColumn.reviewID, as: UUID?.self),
                 fileKey: try row.decode(column: PhotoColumn.fileKey, as: String?.self), artwork: try row.decode(column: PhotoColumn.artwork, as: String?.self),
                 width: try row.decode(column: PhotoColumn.width, as: Int.self), height: try row.decode(column: PhotoColumn.height, as: Int.self),
                 position: try row.decode(column: PhotoColumn.position, as: Int.self))
    }

    package func photo(_ id: UUID) async throws -> PhotoRow? {
        try await sql.select().columns(Self.photoColumns).from(Self.photos).where(SQLIdentifier(PhotoColumn.id), .equal, SQLBind(id)).first()
            .map(Self.photo(from:))
    }

    /// Each review's photos, in their order.
    package func photos(ofReviews ids: [UUID]) async throws -> [UUID: [PhotoRow]] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await sql.select().columns(Self.photoColumns).from(Self.photos)
            .where(SQLIdentifier(PhotoColumn.reviewID), .in, SQLBind.group(ids)).orderBy(PhotoColumn.position).all().map(Self.photo(from:))
        return Dictionary(grouping: rows, by: { $0.reviewID ?? UUID() })
    }

    /// Photos of `owner` no review has taken yet.
    func pendingPhotoCount(of owner: UUID) async throws -> Int {
        try await sql.count(Self.photos) {
            $0.where(SQLIdentifier(PhotoColumn.ownerID), .equal, SQLBind(owner)).where(SQLIdentifier(PhotoColumn.reviewID), .is, SQLLiteral.null)
        }
    }

    /// Photos no review took that were uploaded before `cutoff`, at most `limit`.
    func abandonedPhotos(before cutoff: Date, limit: Int) async throws -> [PhotoRow] {
        try await sql.select().columns(Self.photoColumns).from(Self.photos)
            .where(SQLIdentifier(PhotoColumn.reviewID), .is, SQLLiteral.null).where(SQLIdentifier(PhotoColumn.createdAt), .lessThan, SQLBind(cutoff))
            .limit(limit).all().map(Self.photo(from:))
    }

    /// Whether a photo shows the stored file `key` (files are shared by their SHA-256): asked by
    /// the file storage before it deletes one, on whatever database it deletes in.
    static func photoUses(fileKey key: String, on database: any Database) async throws -> Bool {
        try await database.sql.count(Self.photos) { $0.where(SQLIdentifier(PhotoColumn.fileKey), .equal, SQLBind(key)) } > 0
    }

    /// Writes a photo that waits for a review (`artwork` for the seeded catalog's drawn ones).
    func addPhoto(id: UUID? = nil, owner: UUID, fileKey: String?, artwork: String? = nil, width: Int, height: Int) async throws -> PhotoRow {
        let photo = NewPhoto(id: id ?? UUID(), ownerID: owner, reviewID: nil, position: 0, fileKey: fileKey, artwork: artwork, width: width,
                                height: height, createdAt: environment.now().wholeMicroseconds)
        try await sql.insert(photo, into: BurgerPhoto.schema)
        return PhotoRow(id: photo.id, ownerID: owner, reviewID: nil, fileKey: fileKey, artwork: artwork, width: width, height: height, position: 0)
    }

    func deletePhoto(_ id: UUID) async throws {
        try await sql.delete(from: Self.photos).where(SQLIdentifier(PhotoColumn.id), .equal, SQLBind(id)).run()
    }

    /// The cover photo URL of each place that has one, by place id (one query for a whole map).
    func coverURLs(of places: [PlaceRow]) async throws -> [UUID: String] {
        let covers = places.compactMap { place in place.coverPhotoID.map { (place: place.id, photo: $0) } }
        guard !covers.isEmpty else { return [:] }
        let rows = try await sql.select().column(PhotoColumn.id).column(PhotoColumn.fileKey).from(Self.photos)
            .where(SQLIdentifier(PhotoColumn.id), .in, SQLBind.group(covers.map(\.photo))).all()
        var urls: [UUID: String] = [:]
        for row in rows {
            let id = try row.decode(column: PhotoColumn.id, as: UUID.self)
            urls[id] = photoURL(fileKey: try row.decode(column: PhotoColumn.fileKey, as: String?.self), id: id)
        }
        return Dictionary(covers.compactMap { cover in urls[cover.photo].map { (cover.place, $0) } }, uniquingKeysWith: { first, _ in first })
    }
}

/// A photo as reviews carry it.
package struct PhotoRow: Sendable {
    package let id: UUID
    let ownerID: UUID
    package let reviewID: UUID?
    /// The file in `app.files`; nil for the seeded catalog's drawn pictures.
    package let fileKey: String?
    /// `emoji|#colour` of a generated picture.
    package let artwork: String?
    package let width: Int
    package let height: Int
    package let position: Int
}
