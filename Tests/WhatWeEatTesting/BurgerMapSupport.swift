import Accounts
import Banchan
import BanchanApp
import BurgerMap
import Fluent
import LookForRealBurgerApp
import Mates
import MenuGame
import MenuGameApp
import Notifications
import Platform
import SesacStudyApp
import SocketIO
import XCTVapor

/// Small but real image files for upload tests, built byte by byte.
package enum TestImages {
    /// What a phone's EXIF says about where a photo was taken; it must never reach storage.
    package static let gpsText = "GPS 37.5663N 126.9779E"

    package static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    package static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    package static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    package static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    /// A valid RGB PNG: signature, IHDR, one IDAT (a zlib stream with one stored deflate block)
    /// and IEND, each chunk with its CRC. `seed` colours the pixels, so different seeds are
    /// different files.
    package static func png(width: Int = 3, height: Int = 2, seed: Int = 0) -> Data {
        var raw: [UInt8] = []
        for row in 0..<height {
            raw.append(0)  // filter: none
            for column in 0..<width {
                raw += [UInt8((seed * 37 + row) & 0xFF), UInt8((seed >> 8) & 0xFF), UInt8(column & 0xFF)]
            }
        }
        let length = raw.count
        let zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            + raw + be32(adler32(raw))
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + pngChunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 2, 0, 0, 0])
            + pngChunk("IDAT", zlib)
            + pngChunk("IEND", []))
    }

    package static func jpegSegment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] { [0xFF, marker] + be16(payload.count + 2) + payload }

    /// A JPEG as a phone writes it: JFIF, an EXIF APP1 segment holding a GPS position, tables,
    /// a frame and a scan.
    package static func phoneJPEG(width: Int = 640, height: Int = 480, seed: UInt8 = 0) -> Data {
        let frame = [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        return Data([0xFF, 0xD8]
            + jpegSegment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
            + jpegSegment(0xE1, Array("Exif".utf8) + [0, 0] + Array(gpsText.utf8))
            + jpegSegment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
            + jpegSegment(0xC0, frame)
            + jpegSegment(0xDA, [1, 1, 0, 0, 0x3F, 0])
            // Entropy-coded bytes (0xFF stuffed), as many as a plain picture of that size needs at least.
            // (a seed of 0xFF is stuffed too: in scan data 0xFF is always followed by 0x00)
            + [0x12, seed] + (seed == 0xFF ? [0x00] : []) + [0xFF, 0x00] + [UInt8](repeating: 0x55, count: width * height / 1_000 + 1)
            + [0x56, 0x78, 0xFF, 0xD9])
    }

    /// A 1×1 GIF: a format photos are not accepted in.
    package static let gif = Data(Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3B])
}

/// A part of a multipart body.
package struct UploadPart {
    package var name = "photo"
    package var filename: String? = "photo.png"
    package var contentType = "image/png"
    package var data: Data

    package init(name: String = "photo", filename: String? = "photo.png", contentType: String = "image/png", data: Data) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.data = data
    }
}

extension UploadPart {
    /// The parts as a multipart/form-data body, and its Content-Type with the boundary.
    package static func multipart(_ parts: [UploadPart]) -> (body: Data, contentType: String) {
        let boundary = "----whatweeat-test-\(UUID().uuidString)"
        var body = Data()
        for part in parts {
            var disposition = "form-data; name=\"\(part.name)\""
            if let filename = part.filename { disposition += "; filename=\"\(filename)\"" }
            body += Data("--\(boundary)\r\nContent-Disposition: \(disposition)\r\nContent-Type: \(part.contentType)\r\n\r\n".utf8)
            body += part.data
            body += Data("\r\n".utf8)
        }
        body += Data("--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }
}

/// An account the tests act as.
package struct Member {
    package let id: UUID
    package let token: String
    package let nickname: String
    /// Its sign-in address (password `password1`), when the test made the account.
    package var email: String?

    package init(id: UUID, token: String, nickname: String, email: String? = nil) {
        self.id = id
        self.token = token
        self.nickname = nickname
        self.email = email
    }
}

extension Application {
    /// Signs up `nickname` (with an email of its own) and reads its id from `/api/v1/me`.
    package func member(_ nickname: String, admin: Bool = false) async throws -> Member {
        let email = "member-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let credentials = admin ? try await signUpAdmin(email, nickname: nickname) : try await signUp(email, nickname: nickname)
        let me = try await send(.GET, "/api/v1/me", token: credentials.accessToken)
        let id = try XCTUnwrap(UUID(uuidString: try XCTUnwrap(try me.object()["id"] as? String)))
        return Member(id: id, token: credentials.accessToken, nickname: nickname, email: email)
    }

    /// A member whose account is old enough for its reports to count towards hiding a review
    /// (`BurgerMapService.reporterStandingAge`).
    package func seasonedMember(_ nickname: String) async throws -> Member {
        let member = try await self.member(nickname)
        try await age(member, by: BurgerMapService.reporterStandingAge + 60)
        return member
    }

    /// Moves an account's sign-up into the past.
    package func age(_ member: Member, by seconds: TimeInterval) async throws {
        try await db.sql.raw("UPDATE \(ident: User.schema) SET created_at = \(bind: Date().addingTimeInterval(-seconds)) WHERE id = \(bind: member.id)").run()
    }

    /// Sends raw bytes (a multipart body, a binary file) through the app.
    package func send(_ method: HTTPMethod, _ path: String, body: Data, contentType: String, token: String?) async throws -> TestingHTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": contentType]
        if let token { headers.bearerAuthorization = .init(token: token) }
        return try await testable().performTest(request: TestingHTTPRequest(
            method: method, url: URI(path: path), headers: headers, body: ByteBuffer(data: body)))
    }

    /// `POST /api/v1/burger-map/photos` with these parts as multipart/form-data.
    package func uploadPhoto(_ parts: [UploadPart], token: String?) async throws -> TestingHTTPResponse {
        let (body, contentType) = UploadPart.multipart(parts)
        return try await send(.POST, "/api/v1/burger-map/photos", body: body, contentType: contentType, token: token)
    }

    /// Uploads a PNG (different bytes for each seed) and returns the photo's id.
    package func photo(_ token: String, seed: Int = Int.random(in: 0..<1_000_000)) async throws -> UUID {
        let response = try await uploadPhoto([UploadPart(data: TestImages.png(seed: seed))], token: token)
        XCTAssertEqual(response.status, .created, response.text)
        return try response.json(BurgerMapJSON.Photo.self).id
    }

    /// Registers a place and returns its id.
    package func place(_ token: String, _ name: String = "테스트 버거 \(UUID().uuidString.prefix(6))", lat: Double = 37.5512, lon: Double = 126.9882) async throws -> UUID {
        let response = try await send(.POST, "/api/v1/burger-map/places",
                                      json: BurgerMapJSON.NewPlace(name: name, address: "서울 중구 테스트로 1", lat: lat, lon: lon), token: token)
        XCTAssertEqual(response.status, .created, response.text)
        return try XCTUnwrap(UUID(uuidString: try XCTUnwrap(try response.object()["id"] as? String)))
    }

    /// Writes a review (uploading a fresh photo unless given some) and returns the response.
    package func postReview(_ token: String, place: UUID, title: String = "맛있는 버거", rating: Int = 4, text: String = "패티가 촉촉해요.",
                    photos: [UUID]? = nil) async throws -> TestingHTTPResponse {
        var photoIDs = photos ?? []
        if photos == nil { photoIDs = [try await photo(token)] }
        return try await send(.POST, "/api/v1/burger-map/reviews",
                              json: BurgerMapJSON.NewReview(placeId: place, title: title, rating: rating, text: text, photoIds: photoIDs), token: token)
    }

    /// Writes a review and returns its id.
    package func review(_ token: String, place: UUID, title: String = "맛있는 버거", rating: Int = 4, photos: [UUID]? = nil) async throws -> UUID {
        let response = try await postReview(token, place: place, title: title, rating: rating, photos: photos)
        XCTAssertEqual(response.status, .created, response.text)
        return try response.json(BurgerMapJSON.Review.self).id
    }
}

/// The map's JSON as the tests read and write it.
package enum BurgerMapJSON {
    package struct NewPlace: Encodable {
        package let name: String, address: String, lat: Double, lon: Double

        package init(name: String, address: String, lat: Double, lon: Double) {
            (self.name, self.address, self.lat, self.lon) = (name, address, lat, lon)
        }
    }

    package struct NewReview: Encodable {
        package let placeId: UUID, title: String, rating: Int, text: String, photoIds: [UUID]

        package init(placeId: UUID, title: String, rating: Int, text: String, photoIds: [UUID]) {
            (self.placeId, self.title, self.rating, self.text, self.photoIds) = (placeId, title, rating, text, photoIds)
        }
    }

    package struct Photo: Decodable { package let id: UUID; package let url: String; package let width: Int; package let height: Int }
    package struct PlaceRef: Decodable { package let id: UUID; package let name: String }
    package struct Person: Decodable { package let id: UUID; package let nickname: String; package let profileImageURL: String? }
    package struct Review: Decodable {
        package let id: UUID
        package let place: PlaceRef
        package let author: Person
        package let title: String
        package let rating: Int
        package let text: String
        package let photos: [Photo]
        package let likeCount: Int
        package let bookmarkCount: Int
        package let commentCount: Int
        package let likedByMe: Bool
        package let bookmarkedByMe: Bool
        package let hidden: Bool
        package let createdAt: Date
        package let updatedAt: Date?
    }
    package struct Place: Decodable {
        package let id: UUID
        package let name: String
        package let address: String
        package let reviewCount: Int
        package let averageRating: Double?
        package let photoURL: String?
    }
    package struct PlaceDetail: Decodable {
        package let id: UUID
        package let reviewCount: Int
        package let averageRating: Double?
        package let photoURL: String?
        package let eatenCount: Int
        package let wantCount: Int
        package let myMarks: [String]
    }
    package struct Comment: Decodable { package let id: UUID; package let reviewId: UUID; package let author: Person; package let text: String; package let updatedAt: Date? }
    package struct Profile: Decodable {
        package let id: UUID
        package let nickname: String
        package let reviewCount: Int
        package let followerCount: Int
        package let followingCount: Int
        package let eatenCount: Int
        package let followedByMe: Bool
    }
    package struct Page<Item: Decodable>: Decodable { package let items: [Item]; package let nextCursor: String? }
}

extension Application {
    /// Reads every page of a list (`limit` per page), failing on a page that repeats an item.
    package func allPages<Item: Decodable>(_ path: String, _ type: Item.Type, limit: Int = 100, token: String? = nil,
                                   id: (Item) -> UUID) async throws -> [Item] {
        var items: [Item] = []
        var seen: Set<UUID> = []
        var cursor: String?
        let separator = path.contains("?") ? "&" : "?"
        for _ in 0..<1_000 {
            let query = "\(separator)limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? "")
            let response = try await send(.GET, path + query, token: token)
            XCTAssertEqual(response.status, .ok, "\(path): \(response.text)")
            let page = try response.json(BurgerMapJSON.Page<Item>.self)
            XCTAssertLessThanOrEqual(page.items.count, limit)
            for item in page.items { XCTAssertTrue(seen.insert(id(item)).inserted, "\(path) repeats \(id(item))") }
            items += page.items
            guard let next = page.nextCursor else { return items }
            cursor = next
        }
        XCTFail("\(path) never ends")
        return items
    }

    /// The status a GET of `path` answers.
    package func status(_ path: String, token: String? = nil) async throws -> HTTPStatus {
        try await send(.GET, path, token: token).status
    }

    package func reviewCount() async throws -> Int { try await BurgerReview.query(on: db).count() }

    package func placeDetail(_ id: UUID, token: String? = nil) async throws -> BurgerMapJSON.PlaceDetail {
        let response = try await send(.GET, "/api/v1/burger-map/places/\(id)", token: token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try response.json(BurgerMapJSON.PlaceDetail.self)
    }
}
