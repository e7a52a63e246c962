import Accounts
package import BurgerMap
package import Fluent
import Media
import Notifications
import Platform
package import Vapor

/// The app's posts are our places (`LFRB_BURGER_HOUSE_TEST`) and reviews
/// (`LFRB_BURGER_HOUSE_REVIEW_TEST`), and one more: the donation its "후원하기" pays for. Nothing is
/// stored twice: a post is read from the map and written through its service.
extension BurgerMapCompatRoutes {
    /// What a post id names.
    package enum PostTarget {
        case place(UUID)
        case review(UUID)
        case donation
    }

    /// The post a path's `:post` names; 410 when there is none (the app's "게시글이 존재하지 않습니다").
    package func target(_ req: Request) async throws -> PostTarget {
        try await target(id: req.parameters.get("post") ?? "", req)
    }

    package func target(id raw: String, _ req: Request) async throws -> PostTarget {
        if raw == ObjectID.of(BurgerDonations.postID) { return .donation }
        let store = req.burgerMap.store
        if let place = try await store.placeID(objectID: raw) { return .place(place) }
        if let review = try await store.review(objectID: raw) { return .review(review.id) }
        throw LSLPFailure(410, AppError.notFound("post_not_found"))
    }

    /// `product_id`, `limit` and `next` of a list (all strings): 400 for a product id that is not one
    /// of the app's two, or a limit outside 1…300000.
    struct ListQuery {
        let product: LSLPPostRules.Product
        let page: CursorPageRequest
        /// `next=0`: the app's own end-of-list mark sent back.
        let finished: Bool

        init(_ req: Request, defaultProduct: LSLPPostRules.Product? = nil) throws {
            guard let raw = req.queryValue("product_id") ?? defaultProduct?.rawValue else {
                throw AppError.badRequest("missing_field", ["field": "product_id"])
            }
            guard let product = LSLPPostRules.Product(rawValue: raw) else { throw AppError.badRequest("unknown_product_id") }
            guard let limit = LSLPPostRules.limit(req.queryValue("limit")) else {
                throw AppError.badRequest("invalid_limit", ["max": String(LSLPPostRules.maxLimit)])
            }
            let next = req.queryValue("next") ?? ""
            var cursor: PageCursor?
            if !next.isEmpty, next != LSLPPostRules.lastPage {
                guard let parsed = PageCursor(encoded: next) else { throw AppError.badRequest("invalid_cursor") }
                cursor = parsed
            }
            self.product = product
            self.page = CursorPageRequest(cursor: cursor, limit: limit)
            self.finished = next == LSLPPostRules.lastPage
        }

        /// The cache key of a list every reader sees alike.
        var key: String { "lslp:\(product.rawValue):\(page.limit):\(page.cursor?.encoded ?? "")" }
    }

    // MARK: Reading

    /// `GET /v1/posts`: everyone's shops or reviews, newest first. The same for every reader (the
    /// arrays name people, not "mine"), so kept encoded until a write; the map reads every shop at once.
    package func posts(req: Request) async throws -> Response {
        let query = try ListQuery(req)
        if query.finished { return try await LSLPPostPage(data: [], nextCursor: nil).encodeResponse(for: req) }
        let map = req.burgerMap, writer = postWriter(req)
        let shops = req.application.shopPostFragments
        return try await req.application.burgerMapCache.encoded(query.key) {
            switch query.product {
            case .place:
                // Each shop kept encoded on its own: a write re-makes the shops it touched, not the map.
                let places = try await writer.places(query.page)
                var json = JSONBytes(capacity: 2_048 * places.items.count + 64)
                json.raw("{\"data\":")
                try await shops.writeList(of: places.items, into: &json) { rows in try await writer.posts(of: rows) }
                json.raw(",\"next_cursor\":")
                json.string(places.nextCursor ?? LSLPPostRules.lastPage)
                json.raw("}")
                return ByteBuffer(bytes: json.bytes)
            case .review:
                let reviews = try await map.reviews(query.page, viewer: nil)
                return ByteBuffer(bytes: LSLPPostPage(data: try await writer.posts(of: reviews.items), nextCursor: reviews.nextCursor).json().bytes)
            }
        }
    }

    /// `GET /v1/posts/users/{user_id}`: the shops or reviews one person added.
    func userPosts(req: Request) async throws -> LSLPPostPage {
        let author = try await person(req).id
        let query = try ListQuery(req)
        if query.finished { return LSLPPostPage(data: [], nextCursor: nil) }
        let map = req.burgerMap, writer = postWriter(req)
        switch query.product {
        case .place:
            let page = try await writer.places(query.page, addedBy: author)
            return LSLPPostPage(data: try await writer.posts(of: page.items), nextCursor: page.nextCursor)
        case .review:
            let page = try await map.reviews(byAuthor: author, query.page, viewer: nil)
            return LSLPPostPage(data: try await writer.posts(of: page.items), nextCursor: page.nextCursor)
        }
    }

    /// `GET /v1/posts/{id}`. A shop's post, or a review's while it is visible, is the same for every
    /// reader (the app's shop sheet reads each of its reviews this way), so it is kept encoded until
    /// a write; a review hidden by reports is made for its author alone, and the donation post (in
    /// the reader's language, with its buyers) for each reader.
    package func post(req: Request) async throws -> Response {
        let raw = req.parameters.get("post") ?? ""
        guard raw != ObjectID.of(BurgerDonations.postID) else { return try await post(.donation, req).encodeResponse(for: req) }
        do {
            return try await req.application.burgerMapCache.encoded("lslp-post:\(raw)") {
                var json = JSONBytes(capacity: 4_096)
                LSLPPostPage.write(post: try await post(try await target(id: raw, req), req, viewer: nil), into: &json)
                return ByteBuffer(bytes: json.bytes)
            }
        } catch let error as AppError where error.code == "review_not_found" {
            return try await post(try await target(id: raw, req), req).encodeResponse(for: req)
        }
    }

    /// The post as `viewer` sees it (a hidden review only for its author or an admin).
    package func post(_ target: PostTarget, _ req: Request) async throws -> LSLPPost {
        try await post(target, req, viewer: req.mapActor())
    }

    package func post(_ target: PostTarget, _ req: Request, viewer: MapActor?) async throws -> LSLPPost {
        let map = req.burgerMap, writer = postWriter(req)
        switch target {
        case .place(let id):
            guard let row = try await writer.place(id), let post = try await writer.posts(of: [row]).first else {
                throw LSLPFailure(410, AppError.notFound("post_not_found"))
            }
            return post
        case .review(let id):
            guard let post = try await writer.posts(of: [try await map.review(id, viewer: viewer)]).first else {
                throw LSLPFailure(410, AppError.notFound("post_not_found"))
            }
            return post
        case .donation:
            return try await writer.donationPost(title: req.t("lslp.donation_title"), content: req.t("lslp.donation_content"))
        }
    }

    func postWriter(_ req: Request) -> LSLPPostWriter {
        LSLPPostWriter(map: req.burgerMap)
    }

    // MARK: Writing

    /// `POST /v1/posts` and `PUT /v1/posts/{id}`, as the app sends them (§4): a shop's position and
    /// details in `content1…5`, a review's rating in `price` and its shop in `content1`.
    struct PostBody: Content {
        let product_id: String?
        let title: String?
        let price: Int?
        let content: String?
        let content1: String?
        let content2: String?
        let content3: String?
        let content4: String?
        let content5: String?
        let files: [String]?
    }

    /// A shop is found before it is made, by the feature's own rules (`BurgerMapService.addPlace`):
    /// by its Kakao place id (`content5`) within `BurgerMapRules.kakaoMatchMeters`, then by name within
    /// `BurgerMapRules.samePlaceMeters` (a place the web added), so the app never makes a second of one place;
    /// farther, it is a shop of its own. 200 either way.
    func addPost(req: Request) async throws -> LSLPPost {
        let actor = try req.requireMapActor()
        let body = try req.decodeJSON(PostBody.self)
        guard let product = LSLPPostRules.Product(rawValue: try body.product_id.required("product_id")) else {
            throw AppError.badRequest("unknown_product_id")
        }
        let map = req.burgerMap
        switch product {
        case .place:
            guard let position = LSLPPostRules.position(longitude: try body.content1.required("content1"), latitude: try body.content2.required("content2"))
            else { throw AppError.invalid("invalid_coordinate") }
            let point: Coordinate
            do { point = try Coordinate(lat: position.lat, lon: position.lon) } catch { throw BurgerMapService.appError(error) }
            let kakaoID = body.content5?.trimmingCharacters(in: .whitespaces)
            if let kakaoID, !LSLPPostRules.isPlaceKey(kakaoID) { throw AppError.invalid("invalid_place_key") }
            // A Kakao place without a road address sends `content3: ""`: its coordinates are the place.
            let (place, _) = try await map.addPlace(name: try body.title.required("title"), address: try body.content3.required("content3"),
                                                    at: point, phone: body.content4, kakaoID: kakaoID, addressKnown: false, by: actor.id)
            return try await post(.place(place.id), req)
        case .review:
            guard let placeID = try await map.store.placeID(objectID: try body.content1.required("content1")) else {
                throw AppError.invalid("unknown_place")
            }
            let card = try await map.addReview(ReviewDraft(placeID: placeID, title: try body.title.required("title"),
                                                           rating: try body.price.required("price"), text: body.content ?? "",
                                                           photoIDs: try photoIDs(body.files ?? [])), by: actor.id)
            return try await post(.review(card.id), req)
        }
    }

    /// The author edits a review: any of `title`, `price` (the rating), `content`, `files`. A review
    /// stays on its shop; shops and the donation are not edited through the app.
    func editPost(req: Request) async throws -> LSLPPost {
        let actor = try req.requireMapActor()
        let body = try req.decodeJSON(PostBody.self)
        guard case .review(let id) = try await target(req) else { throw LSLPFailure(403, AppError(.forbidden, "post_not_editable")) }
        let card = try await req.burgerMap.review(id, viewer: actor)
        if let shop = body.content1, shop != ObjectID.of(card.placeID) { throw AppError.invalid("review_place_fixed") }
        _ = try await req.burgerMap.editReview(id, title: body.title, rating: body.price, text: body.content,
                                               photoIDs: try body.files.map(photoIDs), by: actor)
        return try await post(.review(id), req)
    }

    /// The author (or an admin) deletes a review, with its photos, likes and comments.
    func deletePost(req: Request) async throws -> HTTPStatus {
        let actor = try req.requireMapActor()
        guard case .review(let id) = try await target(req) else { throw LSLPFailure(403, AppError(.forbidden, "post_not_deletable")) }
        try await req.burgerMap.deleteReview(id, by: actor)
        return .ok
    }

    /// The photos `POST /v1/posts/files` answered, by their paths.
    private func photoIDs(_ paths: [String]) throws -> [UUID] {
        try paths.map { path in
            guard let id = LSLPPostRules.photoID(fromPath: path) else { throw AppError.invalid("invalid_photo", ["id": String(path.prefix(80))]) }
            return id
        }
    }
}
