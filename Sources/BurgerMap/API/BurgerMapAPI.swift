import Accounts
import Fluent
import Media
import Notifications
import Platform
import Vapor

/// `/api/v1/burger-map/*`. Reads are public; every write needs a signed-in account.
struct BurgerMapAPI: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let map = routes.grouped("api", "v1", "burger-map")
        map.get("places", use: places)
        map.post("places", use: addPlace)
        map.get("places", "search", use: searchPlaces)
        map.get("geocode", use: geocode)
        map.get("places", ":place", use: place)
        map.get("place-suggestions", use: placeSuggestions)
        map.get("places", ":place", "reviews", use: placeReviews)
        map.put("places", ":place", "marks", ":kind", use: setMark)
        map.delete("places", ":place", "marks", ":kind", use: clearMark)

        map.on(.POST, "photos", body: .collect(maxSize: "6mb"), use: addPhoto)

        map.get("reviews", use: reviews)
        map.post("reviews", use: addReview)
        map.get("reviews", ":review", use: review)
        map.patch("reviews", ":review", use: editReview)
        map.delete("reviews", ":review", use: deleteReview)
        for kind in BurgerReaction.Kind.allCases {
            map.put("reviews", ":review", .constant(kind.rawValue)) { try await setReaction(kind, true, $0) }
            map.delete("reviews", ":review", .constant(kind.rawValue)) { try await setReaction(kind, false, $0) }
        }
        map.get("reviews", ":review", "comments", use: comments)
        map.post("reviews", ":review", "comments", use: addComment)
        map.patch("comments", ":comment", use: editComment)
        map.delete("comments", ":comment", use: deleteComment)
        map.post("reviews", ":review", "report", use: report)
        map.post("reviews", ":review", "restore", use: restore)

        map.get("feed", use: feed)
        map.get("users", ":user", use: user)
        map.put("users", ":user", "follow", use: follow)
        map.delete("users", ":user", "follow", use: unfollow)
        map.get("users", ":user", "followers", use: followers)
        map.get("users", ":user", "following", use: following)
        map.get("users", ":user", "reviews", use: userReviews)
        map.get("me", "likes") { try await myReactions(.like, $0) }
        map.get("me", "bookmarks") { try await myReactions(.bookmark, $0) }
        map.get("me", "marks", use: myMarks)
    }

    // MARK: Places

    /// `?bbox=minLon,minLat,maxLon,maxLat` (pins, or clusters past 200) or `?near=lat,lon`
    /// (nearest first, with distances); `q` narrows either to names and addresses holding it.
    func places(req: Request) async throws -> Response {
        let query = try req.query.decode(PlacesQuery.self)
        let text = try query.searchText()
        // A box without search words is the same for everyone: answered from the cache.
        if let bbox = query.bbox, query.near == nil, text == nil {
            return try await req.application.burgerMapCache.json("box:\(bbox)") { try await places(query, text: nil, req) }
        }
        return try await places(query, text: text, req).encodeResponse(for: req)
    }

    private func places(_ query: PlacesQuery, text: String?, _ req: Request) async throws -> PlacesResponse {
        switch (query.bbox, query.near) {
        case (let bbox?, nil):
            let box: BoundingBox
            do { box = try BoundingBox(parsing: bbox) } catch { throw BurgerMapService.appError(error) }
            switch try await req.burgerMap.places(in: box, matching: text) {
            case .pins(let places): return PlacesResponse(items: places.map(PlaceResponse.init), clusters: [])
            case .clusters(let clusters): return PlacesResponse(items: [], clusters: clusters)
            }
        case (nil, let near?):
            let point = try query.coordinate(near)
            let limit = try query.nearLimit()
            let places = try await req.burgerMap.places(near: point, limit: limit, matching: text)
            return PlacesResponse(items: places.map(PlaceResponse.init), clusters: [])
        case (nil, nil): throw AppError.badRequest("missing_area")
        case (_?, _?): throw AppError.badRequest("ambiguous_area")
        }
    }

    /// `?q=` by name or address, best ranked first, paged.
    func searchPlaces(req: Request) async throws -> CursorPage<PlaceResponse> {
        let query = try req.query.decode(PlacesQuery.self)
        guard let text = try query.searchText() else { throw AppError.badRequest("missing_search") }
        let page = try await req.burgerMap.search(text, try CursorPageRequest(from: req))
        return CursorPage(items: page.items.map(PlaceResponse.init), nextCursor: page.nextCursor)
    }

    /// Where an address is, for a new place's pin (signed-in writers): Kakao's answer when it has
    /// a key (`PlaceGeocoder`).
    struct GeocodeResponse: Content {
        struct Match: Content {
            let lat: Double
            let lon: Double
            let address: String
            let roadAddress: String
        }
        let kakao: PlaceGeocoder.Outcome
        @NullEncoded var match: Match?
    }

    func geocode(req: Request) async throws -> GeocodeResponse {
        _ = try req.requireUser()
        let typed = req.query[String.self, at: "address"] ?? ""
        let address = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        let longest = PlaceGeocoder.addressLength.upperBound
        guard typed.fits(characters: longest, bytes: longest * 4), address.count >= PlaceGeocoder.addressLength.lowerBound else { throw AppError.badRequest("invalid_field", ["field": "address"]) }
        let (outcome, found) = try await req.application.placeGeocoder.locate(address, network: req.clientNetwork, now: req.application.siteClock(),
                                                                              logger: req.logger)
        return GeocodeResponse(kakao: outcome, match: found.map {
            .init(lat: $0.coordinate.lat, lon: $0.coordinate.lon, address: $0.address, roadAddress: $0.roadAddress)
        })
    }

    func addPlace(req: Request) async throws -> Response {
        let user = try req.requireUser()
        let body = try req.decodeJSON(PlaceBody.self)
        let point: Coordinate
        do { point = try Coordinate(lat: body.lat, lon: body.lon) } catch { throw BurgerMapService.appError(error) }
        let (place, created) = try await req.burgerMap.addPlace(name: body.name, address: body.address, at: point,
                                                              phone: body.phone, by: try user.requireID())
        let response = PlaceResponse(try await req.burgerMap.summaries([place])[0])
        return try await response.encodeResponse(status: created ? .created : .ok, for: req)
    }

    /// A place with its counts: the same for every anonymous reader until a write (a mark, a
    /// review) changes the map's content, so theirs comes from the cache; a signed-in reader's
    /// carries their own marks and is made for them.
    func place(req: Request) async throws -> Response {
        let id = try req.placeID()
        if req.auth.get(User.self) == nil {
            return try await req.application.burgerMapCache.json("place:\(id)") { try await placeDetail(id, req) }
        }
        return try await placeDetail(id, req).encodeResponse(for: req)
    }

    /// Registrations that disagreed with the place they named (administrators only), newest first.
    func placeSuggestions(req: Request) async throws -> CursorPage<PlaceSuggestionResponse> {
        let (items, next) = try await req.burgerMap.placeSuggestions(by: try req.requireMapActor(), try CursorPageRequest(from: req))
        return CursorPage(items: try items.map(PlaceSuggestionResponse.init), nextCursor: next)
    }

    func placeReviews(req: Request) async throws -> Response {
        let placeID = try req.placeID()
        let page = try CursorPageRequest(from: req)
        return try await cachedForAnonymous(req, key: "place-reviews:\(placeID):\(req.url.query ?? "")") { viewer in
            reviewPage(try await req.burgerMap.reviews(ofPlace: placeID, page, viewer: viewer), req)
        }
    }

    func setMark(req: Request) async throws -> PlaceDetailResponse { try await mark(req, on: true) }
    func clearMark(req: Request) async throws -> PlaceDetailResponse { try await mark(req, on: false) }

    private func mark(_ req: Request, on: Bool) async throws -> PlaceDetailResponse {
        let user = try req.requireUser().requireID()
        guard let kind = req.parameters.get("kind").flatMap(BurgerMark.Kind.init(rawValue:)) else { throw AppError.notFound("mark_not_found") }
        let placeID = try req.placeID()
        _ = try await req.burgerMap.setMark(kind, on: placeID, to: on, by: user)
        return try await placeDetail(placeID, req)
    }

    private func placeDetail(_ id: UUID, _ req: Request) async throws -> PlaceDetailResponse {
        PlaceDetailResponse(try await req.burgerMap.placeDetail(id, viewer: req.auth.get(User.self)?.id))
    }


    // MARK: Photos

    /// One image in a multipart body (any field name): JPEG, PNG or WebP up to 5 MB.
    func addPhoto(req: Request) async throws -> Response {
        let user = try req.requireUser().requireID()
        let data = try req.singleUploadedFile()
        let photo = try await req.burgerMap.addPhoto(data, by: user, from: req.clientNetwork.key)
        let response = PhotoResponse(id: photo.id, url: BurgerMapService.photoURL(fileKey: photo.fileKey, id: photo.id, files: req.application.files),
                                     width: photo.width, height: photo.height)
        return try await response.encodeResponse(status: .created, for: req)
    }

    // MARK: Reviews

    func reviews(req: Request) async throws -> Response {
        let page = try CursorPageRequest(from: req)
        let viewer = req.auth.get(User.self)
        if req.query[String.self, at: "hidden"] == "true" {
            guard viewer?.role == .admin else { throw viewer == nil ? AppError.unauthorized : AppError.forbidden }
            return try await reviewPage(try await req.burgerMap.hiddenReviews(page, viewer: viewer?.id), req).encodeResponse(for: req)
        }
        return try await cachedForAnonymous(req, key: "reviews:\(req.url.query ?? "")") { viewer in
            reviewPage(try await req.burgerMap.reviews(page, viewer: viewer), req)
        }
    }

    /// Lists without the reader's own state (likes, bookmarks) are the same for every anonymous
    /// reader, so those come from the cache; a signed-in reader's are made for them.
    private func cachedForAnonymous(_ req: Request, key: String, _ make: (UUID?) async throws -> CursorPage<ReviewResponse>) async throws -> Response {
        if let viewer = req.auth.get(User.self)?.id { return try await make(viewer).encodeResponse(for: req) }
        return try await req.application.burgerMapCache.json(key) { try await make(nil) }
    }

    func addReview(req: Request) async throws -> Response {
        let user = try req.requireUser().requireID()
        let body = try req.decodeJSON(ReviewBody.self)
        let card = try await req.burgerMap.addReview(
            ReviewDraft(placeID: body.placeId, title: body.title, rating: body.rating, text: body.text, photoIDs: body.photoIds), by: user)
        return try await ReviewResponse(card, files: req.application.files).encodeResponse(status: .created, for: req)
    }

    /// A review: anonymous readers get the cache's bytes until the next write (as for a place); a
    /// signed-in reader's carries their own like and bookmark.
    func review(req: Request) async throws -> Response {
        let id = try req.reviewID()
        guard let actor = req.mapActor() else {
            return try await req.application.burgerMapCache.json("review-answer:\(id)") {
                ReviewResponse(try await req.burgerMap.review(id, viewer: nil), files: req.application.files)
            }
        }
        return try await ReviewResponse(try await req.burgerMap.review(id, viewer: actor), files: req.application.files).encodeResponse(for: req)
    }

    func editReview(req: Request) async throws -> ReviewResponse {
        let actor = try req.requireMapActor()
        let patch = try req.decodeJSON(ReviewPatch.self)
        let card = try await req.burgerMap.editReview(try req.reviewID(), title: patch.title, rating: patch.rating, text: patch.text,
                                                      photoIDs: patch.photoIds, by: actor)
        return ReviewResponse(card, files: req.application.files)
    }

    func deleteReview(req: Request) async throws -> HTTPStatus {
        try await req.burgerMap.deleteReview(try req.reviewID(), by: try req.requireMapActor())
        return .noContent
    }

    func setReaction(_ kind: BurgerReaction.Kind, _ on: Bool, _ req: Request) async throws -> ReviewResponse {
        let card = try await req.burgerMap.setReaction(kind, on: try req.reviewID(), to: on, by: try req.requireMapActor())
        return ReviewResponse(card, files: req.application.files)
    }

    func report(req: Request) async throws -> ReportResponse {
        let user = try req.requireUser().requireID()
        let body = try req.decodeJSON(ReportBody.self)
        let hidden = try await req.burgerMap.report(try req.reviewID(), reason: body.reason, by: user)
        return ReportResponse(reported: true, hidden: hidden)
    }

    func restore(req: Request) async throws -> ReviewResponse {
        let actor = try req.requireMapActor()
        return ReviewResponse(try await req.burgerMap.restore(try req.reviewID(), by: actor), files: req.application.files)
    }

    // MARK: Comments

    func comments(req: Request) async throws -> CursorPage<CommentResponse> {
        let page = try await req.burgerMap.comments(on: try req.reviewID(), viewer: req.mapActor(), try CursorPageRequest(from: req))
        return CursorPage(items: page.items.map { CommentResponse($0, files: req.application.files) }, nextCursor: page.nextCursor)
    }

    func addComment(req: Request) async throws -> Response {
        let actor = try req.requireMapActor()
        let body = try req.decodeJSON(CommentBody.self)
        let comment = try await req.burgerMap.addComment(body.text, on: try req.reviewID(), by: actor)
        return try await CommentResponse(comment, files: req.application.files).encodeResponse(status: .created, for: req)
    }

    func editComment(req: Request) async throws -> CommentResponse {
        let actor = try req.requireMapActor()
        let body = try req.decodeJSON(CommentBody.self)
        return CommentResponse(try await req.burgerMap.editComment(try req.commentID(), text: body.text, by: actor), files: req.application.files)
    }

    func deleteComment(req: Request) async throws -> HTTPStatus {
        try await req.burgerMap.deleteComment(try req.commentID(), by: try req.requireMapActor())
        return .noContent
    }

    // MARK: People and feeds

    /// A reader's feed is theirs alone, but they reload it often: cached per reader until a write.
    func feed(req: Request) async throws -> Response {
        let user = try req.requireUser().requireID()
        let page = try CursorPageRequest(from: req)
        return try await req.application.burgerMapCache.json("feed:\(user):\(req.url.query ?? "")") {
            reviewPage(try await req.burgerMap.feed(of: user, page), req)
        }
    }

    func user(req: Request) async throws -> MapProfileResponse {
        MapProfileResponse(try await req.burgerMap.profile(of: try req.userIDParameter(), viewer: req.auth.get(User.self)?.id),
                           files: req.application.files)
    }

    func follow(req: Request) async throws -> MapProfileResponse { try await setFollow(req, on: true) }
    func unfollow(req: Request) async throws -> MapProfileResponse { try await setFollow(req, on: false) }

    private func setFollow(_ req: Request, on: Bool) async throws -> MapProfileResponse {
        let me = try req.requireUser().requireID()
        return MapProfileResponse(try await req.burgerMap.setFollow(try req.userIDParameter(), to: on, by: me), files: req.application.files)
    }

    func followers(req: Request) async throws -> CursorPage<PersonSummary> {
        let page = try await req.burgerMap.followers(of: try req.userIDParameter(), try CursorPageRequest(from: req))
        return CursorPage(items: page.items.map { PersonSummary($0, files: req.application.files) }, nextCursor: page.nextCursor)
    }

    func following(req: Request) async throws -> CursorPage<PersonSummary> {
        let page = try await req.burgerMap.following(of: try req.userIDParameter(), try CursorPageRequest(from: req))
        return CursorPage(items: page.items.map { PersonSummary($0, files: req.application.files) }, nextCursor: page.nextCursor)
    }

    func userReviews(req: Request) async throws -> CursorPage<ReviewResponse> {
        let author = try req.userIDParameter()
        _ = try await req.burgerMap.person(author)
        return reviewPage(try await req.burgerMap.reviews(byAuthor: author, try CursorPageRequest(from: req), viewer: req.auth.get(User.self)?.id), req)
    }

    func myReactions(_ kind: BurgerReaction.Kind, _ req: Request) async throws -> CursorPage<ReviewResponse> {
        let user = try req.requireUser().requireID()
        return reviewPage(try await req.burgerMap.reactions(kind, of: user, try CursorPageRequest(from: req)), req)
    }

    func myMarks(req: Request) async throws -> CursorPage<PlaceResponse> {
        let user = try req.requireUser().requireID()
        guard let raw = req.query[String.self, at: "kind"] else { throw AppError.badRequest("missing_mark_kind") }
        guard let kind = BurgerMark.Kind(rawValue: raw) else { throw AppError.badRequest("invalid_mark_kind") }
        let page = try await req.burgerMap.marks(kind, of: user, try CursorPageRequest(from: req))
        return CursorPage(items: page.items.map(PlaceResponse.init), nextCursor: page.nextCursor)
    }

    private func reviewPage(_ page: (items: [ReviewCard], nextCursor: String?), _ req: Request) -> CursorPage<ReviewResponse> {
        CursorPage(items: page.items.map { ReviewResponse($0, files: req.application.files) }, nextCursor: page.nextCursor)
    }
}
