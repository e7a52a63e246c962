import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import LookForRealBurgerApp
import Platform
import WhatWeEatTesting
import XCTVapor

/// Every write route of the burger map (and the personal reads) run as anonymous, another user,
/// the owner of what it touches and an admin, each answering the status the rules give them.
final class BurgerMapPermissionsTests: XCTestCase {
    enum Role: String, CaseIterable { case anonymous, other, owner, admin }

    /// What a role gets: a status, and for refusals the error code.
    struct Outcome: CustomStringConvertible {
        let status: HTTPStatus
        let code: String?
        var description: String { "\(status.code)\(code.map { " \($0)" } ?? "")" }
    }

    static func ok(_ status: HTTPStatus = .ok) -> Outcome { Outcome(status: status, code: nil) }
    static func no(_ status: HTTPStatus, _ code: String) -> Outcome { Outcome(status: status, code: code) }
    static let unauthorized = no(.unauthorized, "unauthorized")

    struct Cast {
        let owner: Member
        let other: Member
        let admin: Member

        func token(_ role: Role) -> String? {
            switch role {
            case .anonymous: return nil
            case .other: return other.token
            case .owner: return owner.token
            case .admin: return admin.token
            }
        }
    }

    /// Runs `request` once per role (each run sets up what it needs, so a delete by one role
    /// leaves the next its own) and checks each outcome.
    func check(_ label: String, _ expected: [Role: Outcome], _ cast: Cast,
               _ request: (_ token: String?) async throws -> TestingHTTPResponse,
               file: StaticString = #filePath, line: UInt = #line) async throws {
        XCTAssertEqual(Set(expected.keys), Set(Role.allCases), "\(label) names every role", file: file, line: line)
        for role in Role.allCases {
            guard let outcome = expected[role] else { continue }
            let response = try await request(cast.token(role))
            XCTAssertEqual(response.status, outcome.status, "\(label) as \(role): \(response.text)", file: file, line: line)
            if let code = outcome.code {
                XCTAssertEqual(response.errorCode, code, "\(label) as \(role)", file: file, line: line)
            }
        }
    }

    func testEveryWriteRouteAsAnonymousAnotherUserTheOwnerAndAnAdmin() async throws {
        try await withTestApp { app in
            let cast = Cast(owner: try await app.member("주인"), other: try await app.member("손님"), admin: try await app.member("관리자", admin: true))
            let reviewAuthor = try await app.member("리뷰어")
            let place = try await app.place(cast.owner.token)
            let map = "/api/v1/burger-map"
            let anyone: [Role: Outcome] = [.anonymous: Self.unauthorized, .other: Self.ok(), .owner: Self.ok(), .admin: Self.ok()]
            func everyone(_ status: HTTPStatus) -> [Role: Outcome] {
                [.anonymous: Self.unauthorized, .other: Self.ok(status), .owner: Self.ok(status), .admin: Self.ok(status)]
            }
            /// A fresh review by the owner, with a photo of their own.
            func ownersReview() async throws -> UUID { try await app.review(cast.owner.token, place: place) }

            // Places and photos: any signed-in account.
            var placeNumber = 0
            try await check("POST /places", everyone(.created), cast) { token in
                placeNumber += 1
                return try await app.send(.POST, "\(map)/places", json: BurgerMapJSON.NewPlace(name: "권한 버거 \(placeNumber)", address: "서울",
                                                                                                lat: 37.5, lon: 127.0 + Double(placeNumber) * 0.01), token: token)
            }
            try await check("POST /photos", everyone(.created), cast) { token in
                try await app.uploadPhoto([UploadPart(data: TestImages.png(seed: Int.random(in: 0..<1_000_000)))], token: token)
            }

            // Reviews: anyone writes with their own photos; only the author edits; the author or an admin deletes.
            try await check("POST /reviews", everyone(.created), cast) { token in
                let photo = try await app.photo(token ?? cast.owner.token)
                return try await app.send(.POST, "\(map)/reviews", json: BurgerMapJSON.NewReview(placeId: place, title: "권한", rating: 3,
                                                                                                 text: "", photoIds: [photo]), token: token)
            }
            try await check("POST /reviews with the owner's photo",
                            [.anonymous: Self.unauthorized, .other: Self.no(.unprocessableEntity, "invalid_photo"), .owner: Self.ok(.created),
                             .admin: Self.no(.unprocessableEntity, "invalid_photo")], cast) { token in
                let photo = try await app.photo(cast.owner.token)
                return try await app.send(.POST, "\(map)/reviews", json: BurgerMapJSON.NewReview(placeId: place, title: "남의 사진", rating: 3,
                                                                                                 text: "", photoIds: [photo]), token: token)
            }
            let review = try await ownersReview()
            try await check("PATCH /reviews/{id}",
                            [.anonymous: Self.unauthorized, .other: Self.no(.forbidden, "not_review_author"), .owner: Self.ok(),
                             .admin: Self.no(.forbidden, "not_review_author")], cast) { token in
                try await app.send(.PATCH, "\(map)/reviews/\(review)", json: ["title": "고친 제목"], token: token)
            }
            let title = try await app.send(.GET, "\(map)/reviews/\(review)").json(BurgerMapJSON.Review.self).title
            XCTAssertEqual(title, "고친 제목")
            try await check("DELETE /reviews/{id}",
                            [.anonymous: Self.unauthorized, .other: Self.no(.forbidden, "not_review_author"), .owner: Self.ok(.noContent),
                             .admin: Self.ok(.noContent)], cast) { token in
                try await app.send(.DELETE, "\(map)/reviews/\(try await ownersReview())", token: token)
            }

            // Likes and bookmarks: any signed-in account, the author included.
            for kind in ["like", "bookmark"] {
                for method in [HTTPMethod.PUT, .DELETE] {
                    try await check("\(method) /reviews/{id}/\(kind)", anyone, cast) { token in
                        try await app.send(method, "\(map)/reviews/\(review)/\(kind)", token: token)
                    }
                }
            }

            // Comments: anyone comments; the comment's author edits; its author, the review's author
            // or an admin deletes. Here "owner" is the comment's author, on someone else's review.
            let othersReview = try await app.review(reviewAuthor.token, place: place)
            func ownersComment() async throws -> UUID {
                let response = try await app.send(.POST, "\(map)/reviews/\(othersReview)/comments", json: ["text": "맛있겠다"], token: cast.owner.token)
                return try response.json(BurgerMapJSON.Comment.self).id
            }
            try await check("POST /reviews/{id}/comments", everyone(.created), cast) { token in
                try await app.send(.POST, "\(map)/reviews/\(othersReview)/comments", json: ["text": "저도요"], token: token)
            }
            let comment = try await ownersComment()
            try await check("PATCH /comments/{id}",
                            [.anonymous: Self.unauthorized, .other: Self.no(.forbidden, "not_comment_author"), .owner: Self.ok(),
                             .admin: Self.no(.forbidden, "not_comment_author")], cast) { token in
                try await app.send(.PATCH, "\(map)/comments/\(comment)", json: ["text": "고쳤어요"], token: token)
            }
            let reviewAuthorEdits = try await app.send(.PATCH, "\(map)/comments/\(comment)", json: ["text": "내 리뷰니까"], token: reviewAuthor.token)
            XCTAssertEqual(reviewAuthorEdits.status, .forbidden, "the review's author does not edit others' comments")
            try await check("DELETE /comments/{id}",
                            [.anonymous: Self.unauthorized, .other: Self.no(.forbidden, "not_comment_author"), .owner: Self.ok(.noContent),
                             .admin: Self.ok(.noContent)], cast) { token in
                try await app.send(.DELETE, "\(map)/comments/\(try await ownersComment())", token: token)
            }
            let reviewAuthorDeletes = try await app.send(.DELETE, "\(map)/comments/\(try await ownersComment())", token: reviewAuthor.token)
            XCTAssertEqual(reviewAuthorDeletes.status, .noContent, "the review's author deletes any comment on it")
            let remaining = try await app.send(.GET, "\(map)/reviews/\(othersReview)").json(BurgerMapJSON.Review.self).commentCount
            let stored = try await BurgerComment.query(on: app.db).filter(\.$review.$id == othersReview).count()
            XCTAssertEqual(remaining, stored, "the count follows every delete")

            // Reports: anyone but the author; restore: admins only.
            try await check("POST /reviews/{id}/report",
                            [.anonymous: Self.unauthorized, .other: Self.ok(), .owner: Self.no(.unprocessableEntity, "cannot_report_own_review"),
                             .admin: Self.ok()], cast) { token in
                try await app.send(.POST, "\(map)/reviews/\(review)/report", json: ["reason": "이상해요"], token: token)
            }
            try await check("POST /reviews/{id}/restore",
                            [.anonymous: Self.unauthorized, .other: Self.no(.forbidden, "forbidden"), .owner: Self.no(.forbidden, "forbidden"),
                             .admin: Self.ok()], cast) { token in
                try await app.send(.POST, "\(map)/reviews/\(review)/restore", token: token)
            }
            try await check("GET /reviews?hidden=true",
                            [.anonymous: Self.unauthorized, .other: Self.no(.forbidden, "forbidden"), .owner: Self.no(.forbidden, "forbidden"),
                             .admin: Self.ok()], cast) { token in
                try await app.send(.GET, "\(map)/reviews?hidden=true", token: token)
            }

            // Marks: one's own, for any signed-in account.
            for kind in ["eaten", "want"] {
                for method in [HTTPMethod.PUT, .DELETE] {
                    try await check("\(method) /places/{id}/marks/\(kind)", anyone, cast) { token in
                        try await app.send(method, "\(map)/places/\(place)/marks/\(kind)", token: token)
                    }
                }
            }

            // Follows: "owner" is the person followed, who cannot follow themselves.
            for method in [HTTPMethod.PUT, .DELETE] {
                try await check("\(method) /users/{id}/follow",
                                [.anonymous: Self.unauthorized, .other: Self.ok(), .owner: Self.no(.unprocessableEntity, "cannot_follow_self"),
                                 .admin: Self.ok()], cast) { token in
                    try await app.send(method, "\(map)/users/\(cast.owner.id)/follow", token: token)
                }
            }

            // One's own lists and inbox.
            for path in ["\(map)/feed", "\(map)/me/likes", "\(map)/me/bookmarks", "\(map)/me/marks?kind=eaten", "/api/v1/notifications"] {
                try await check("GET \(path)", anyone, cast) { token in try await app.send(.GET, path, token: token) }
            }
            try await check("POST /api/v1/notifications/read", anyone, cast) { token in
                try await app.send(.POST, "/api/v1/notifications/read", token: token)
            }

            // A token that is not a token is refused, not treated as anonymous.
            let forged = try await app.send(.PUT, "\(map)/reviews/\(review)/like", token: "not-a-jwt")
            XCTAssertEqual(forged.status, .unauthorized)
            XCTAssertEqual(forged.errorCode, "invalid_token")
        }
    }
}
