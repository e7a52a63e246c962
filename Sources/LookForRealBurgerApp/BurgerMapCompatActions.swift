import Accounts
import BurgerMap
import Fluent
import Media
import Notifications
import Payments
import Platform
package import Vapor

/// What the app does to posts: likes and bookmarks (a place's are "eaten" and "want to go"),
/// comments (on a shop, the review link), photos, and the donation's payment check.
extension BurgerMapCompatRoutes {
    // MARK: Likes

    struct LikeBody: Content { package let like_status: Bool? }

    /// `POST /v1/posts/{id}/like` (`like-2` when `second`): sets the state the app asks for, not a
    /// toggle. On a review a like or a bookmark; on a shop "eaten here" or "want to go".
    func setLike(_ req: Request, second: Bool) async throws -> LSLPLikeStatus {
        let actor = try req.requireMapActor()
        let on = try req.decodeJSON(LikeBody.self).like_status.required("like_status")
        switch try await target(req) {
        case .review(let id): _ = try await req.burgerMap.setReaction(second ? .bookmark : .like, on: id, to: on, by: actor)
        case .place(let id): _ = try await req.burgerMap.setMark(second ? .want : .eaten, on: id, to: on, by: actor.id)
        case .donation: throw AppError.invalid("post_not_likeable")
        }
        return LSLPLikeStatus(like_status: on)
    }

    /// `GET /v1/posts/likes/me` (`likes-2/me` when `second`): reviews I liked or bookmarked, the
    /// latest first; with `product_id` of shops, the places I ate at or want to go to. The app sends
    /// no `product_id` here, and means reviews.
    func myLikes(_ req: Request, second: Bool) async throws -> LSLPPostPage {
        let me = try req.requireMapActor().id
        let query = try ListQuery(req, defaultProduct: .review)
        if query.finished { return LSLPPostPage(data: [], nextCursor: nil) }
        let map = req.burgerMap, writer = postWriter(req)
        switch query.product {
        case .review:
            let page = try await map.reactions(second ? .bookmark : .like, of: me, query.page)
            return LSLPPostPage(data: try await writer.posts(of: page.items), nextCursor: page.nextCursor)
        case .place:
            let page = try await writer.markedPlaces(second ? .want : .eaten, of: me, query.page)
            return LSLPPostPage(data: try await writer.posts(of: page.items), nextCursor: page.nextCursor)
        }
    }

    // MARK: Comments

    package struct CommentBody: Content { package let content: String? }

    /// On a review, a comment. On a shop, the app links a review it just wrote by commenting the
    /// review's id (§4.3): a review of that shop answers as that link, and nothing is stored (the
    /// review names its shop already); any other text is refused, as shops take no comments here.
    package func addComment(req: Request) async throws -> LSLPComment {
        let actor = try req.requireMapActor()
        let text = try req.decodeJSON(CommentBody.self).content.required("content")
        let map = req.burgerMap
        switch try await target(req) {
        case .review(let id):
            return LSLPComment(try await map.addComment(text, on: id, by: actor))
        case .place(let placeID):
            let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let review = try await map.store.review(objectID: key), review.placeID == placeID else {
                throw AppError.invalid("review_link_expected")
            }
            let card: ReviewCard
            do {
                card = try await map.review(review.id, viewer: actor)
            } catch let error as AppError where error.status == .notFound {
                throw AppError.invalid("review_link_expected")  // hidden by reports: not the reader's to link
            }
            return LSLPComment(CommentRow(id: card.id, author: PersonRow(id: card.authorID, nickname: card.authorNickname, imageKey: card.authorImageKey),
                                          text: ObjectID.of(card.id), createdAt: card.createdAt))
        case .donation:
            throw AppError.invalid("post_not_commentable")
        }
    }

    /// Only a comment's author edits it; a shop's review links change only with their reviews.
    package func editComment(req: Request) async throws -> LSLPComment {
        let actor = try req.requireMapActor()
        let text = try req.decodeJSON(CommentBody.self).content.required("content")
        let comment = try await reviewComment(req)
        return LSLPComment(try await req.burgerMap.editComment(comment.id, text: text, by: actor))
    }

    /// A comment's author, the review's author or an admin deletes it.
    package func deleteComment(req: Request) async throws -> HTTPStatus {
        let actor = try req.requireMapActor()
        try await req.burgerMap.deleteComment(try await reviewComment(req).id, by: actor)
        return .ok
    }

    /// The comment a path names, on the review the path names; 410 otherwise.
    private func reviewComment(_ req: Request) async throws -> CommentRow {
        guard case .review(let reviewID) = try await target(req) else { throw AppError.invalid("review_link_fixed") }
        let map = req.burgerMap
        guard let found = try await map.store.comment(objectID: req.parameters.get("comment") ?? ""),
              found.reviewID == reviewID else { throw LSLPFailure(410, AppError.notFound("comment_not_found")) }
        return try await map.comment(found.id)
    }

    // MARK: Photos

    /// `POST /v1/posts/files`: 1–5 images in parts named `files` (any name with a filename is
    /// taken), checked by their bytes (JPEG, PNG or WebP: the app labels JPEGs `image/jpg`), without
    /// their metadata. All are checked before any is kept. Each waits for a review, as the web's do.
    package func uploadFiles(req: Request) async throws -> LSLPFiles {
        let me = try req.requireMapActor().id
        let photos: [PhotoRow]
        do {
            photos = try await req.burgerMap.addPhotos(try req.uploadedFiles(), by: me, from: req.clientNetwork.key)
        } catch let error as AppError where error.status == .unsupportedMediaType {
            throw LSLPFailure(400, error)  // the app's "이미지 파일에 대한 형식이 맞지 않습니다"
        }
        return LSLPFiles(files: photos.map { LSLPPostWriter.path(photoID: $0.id, fileKey: $0.fileKey) })
    }

    /// `GET /v1/uploads/posts/{file}`: a review photo; the catalog's drawn ones as JPEG (the app's
    /// image loader cannot draw SVG), or SVG where none was drawn.
    func postImage(req: Request) async throws -> Response {
        try await requireImageReader(req)
        guard let id = req.parameters.get("file").flatMap(LSLPPostRules.photoID(fromFileName:)),
              let photo = try await req.burgerMap.store.photo(id) else { throw AppError.notFound("photo_not_found") }
        if let key = photo.fileKey, let response = try await req.storedFile(key) { return response }
        if photo.artwork != nil {
            guard let jpeg = BurgerMapImages.jpeg(of: photo, resources: req.application.directory.resourcesDirectory) else {
                return BurgerMapImages().picture(of: photo)
            }
            let response = try await req.fileio.asyncStreamFile(at: jpeg, mediaType: .jpeg)
            response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=86400")
            return response
        }
        throw AppError.notFound("photo_not_found")
    }

    /// `GET /v1/uploads/profiles/{key}`: a profile picture, as posts name it.
    func profileImage(req: Request) async throws -> Response {
        try await requireImageReader(req)
        guard let key = req.parameters.get("key"), let response = try await req.storedFile(key) else { throw AppError.notFound("photo_not_found") }
        return response
    }

    /// The app's image loader sends the key and the access token it has, and never refreshes it:
    /// a token of ours that has expired still shows pictures (they are public on the web anyway).
    private func requireImageReader(_ req: Request) async throws {
        guard !req.lslpAccessToken.isEmpty, (try? await req.application.accessTokens.verifyIgnoringExpiry(req.lslpAccessToken)) != nil else {
            throw LSLPFailure(401, AppError(.unauthorized, "invalid_token"))
        }
    }

    // MARK: The donation

    package struct PaymentBody: Content { package let imp_uid: String?; package let post_id: String? }

    /// `POST /v1/payments/validation {imp_uid, post_id}`: the app paid 100 won with PortOne for the
    /// donation post; the payment provider confirms it (`PAYMENT_GATEWAY`) before it counts.
    func validatePayment(req: Request) async throws -> LSLPPayment {
        let me = try req.requireMapActor().id
        let body = try req.decodeJSON(PaymentBody.self)
        let paymentID = try body.imp_uid.required("imp_uid")
        let postID = try body.post_id.required("post_id")
        guard case .donation = try await target(id: postID, req) else { throw AppError.invalid("not_for_sale") }
        let donation = try await BurgerDonations(database: req.db).donate(paymentID: paymentID, by: me, gateway: req.application.paymentGateway, logger: req.logger,
                                                                   now: req.application.burgerMapEnvironment.now())
        return LSLPPayment(buyer_id: ObjectID.of(me), post_id: postID, merchant_uid: donation.merchantUID, productName: req.t("lslp.donation_title"),
                           price: donation.amount, paidAt: JavaScriptDate.string(donation.createdAt))
    }
}
