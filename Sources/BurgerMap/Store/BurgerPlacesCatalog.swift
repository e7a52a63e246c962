import Accounts
import Crypto
import Fluent
import Media
import Platform
import SQLKit
import Vapor

/// `Resources/catalogs/burger_places.json`: the places a new install's map starts with, across
/// Seoul, Busan and Jeju, each with reviews by a dozen seed reviewers and generated photos.
enum BurgerPlacesCatalog {
    package struct Place: Decodable {
        package let key: String
        package let name: String
        package let address: String
        package let lat: Double
        package let lon: Double
        package let phone: String?
        package let emoji: String
        package let color: String
        package let reviews: [Review]
    }

    package struct Review: Decodable {
        package let author: String
        package let title: String
        package let rating: Int
        package let text: String
        let daysAgo: Int
        package let photos: Int
    }

    static func load(from directory: String) throws -> [Place] {
        let path = directory + "catalogs/burger_places.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(message: "missing burger place catalog \(path)")
        }
        return try JSONDecoder().decode([Place].self, from: data)
    }

    /// A stable id for a catalog entry, so seeding twice finds what the first run made.
    static func id(_ name: String) -> UUID {
        var bytes = Array(SHA256.hash(data: Data("whatweeat.burger-map.\(name)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5 style (name-based)
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    static func reviewerEmail(_ index: Int) -> String { "burger-reviewer-\(index + 1)@seed.whatweeat.invalid" }
}

/// Seeds the catalog once, in one transaction: the reviewers (accounts nobody can sign in to),
/// the places, their reviews dated as the file says, and their pictures. It never runs again
/// after that, so places an admin deletes stay deleted.
struct BurgerPlacesSeeder: Seeder {
    var name: String { "burger places" }

    func seed(_ app: Application) async throws {
        guard try await !AccountStore(database: app.db, application: app).emailTaken(BurgerPlacesCatalog.reviewerEmail(0)) else { return }
        let places = try BurgerPlacesCatalog.load(from: app.directory.resourcesDirectory)
        let authors = Array(Set(places.flatMap { $0.reviews.map(\.author) })).sorted()
        // One unknowable password for every reviewer account: a sign-in can never match it.
        let lockedPassword = try await app.passwordHasher.hash(SecureRandom.token())
        let now = app.burgerMapEnvironment.now()
        // One transaction; the places are announced (the index learns of them) once it committed.
        try await BurgerMapStore(database: app.db, environment: app.burgerMapEnvironment).transaction { store in
            let accounts = AccountStore(database: store.database, application: app)
            var authorIDs: [String: UUID] = [:]
            for (index, nickname) in authors.enumerated() {
                var chosen = nickname
                if try await accounts.nicknameTaken(key: AccountRules.nicknameKey(nickname), except: nil) {
                    chosen = "\(nickname)\(index + 1)"  // someone took the name before the catalog came
                }
                let user = User(email: BurgerPlacesCatalog.reviewerEmail(index), passwordHash: lockedPassword, nickname: chosen)
                try await accounts.create(user)
                authorIDs[nickname] = try user.requireID()
            }
            for entry in places {
                let placeID = BurgerPlacesCatalog.id("place.\(entry.key)")
                guard try await store.place(placeID) == nil else { continue }
                _ = try await store.addPlace(name: entry.name, address: entry.address, at: Coordinate(unchecked: entry.lat, entry.lon),
                                             phone: entry.phone, kakaoID: nil, unverified: false, by: nil, id: placeID)
                for review in entry.reviews.sorted(by: { $0.daysAgo > $1.daysAgo }) {
                    guard let authorID = authorIDs[review.author] else { continue }
                    let reviewID = BurgerPlacesCatalog.id("review.\(entry.key).\(review.author)")
                    var photoIDs: [UUID] = []
                    for index in 0..<max(1, min(review.photos, 5)) {
                        photoIDs.append(try await store.addPhoto(id: BurgerPlacesCatalog.id("photo.\(entry.key).\(review.author).\(index)"), owner: authorID,
                                                                 fileKey: nil, artwork: "\(entry.emoji)|\(entry.color)", width: 800, height: 600).id)
                    }
                    // Dated as the file says, to the microsecond like every created_at.
                    let written = Date(timeIntervalSinceReferenceDate: (now.addingTimeInterval(-Double(review.daysAgo) * 86_400 - 3_600)
                        .timeIntervalSinceReferenceDate * 1e6).rounded() / 1e6)
                    try await store.addReview(id: reviewID, ReviewDraft(placeID: placeID, title: review.title, rating: review.rating, text: review.text,
                                                                        photoIDs: photoIDs), by: authorID, writtenAt: written)
                }
            }
        }
    }
}
