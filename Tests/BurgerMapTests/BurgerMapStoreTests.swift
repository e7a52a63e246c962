import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Every statement of `BurgerMapStore` (SQLite here, PostgreSQL in CI's second pass): each row it
/// reads in place of a model is checked against the model, each write against what it moves (the
/// place's count, rating and cover; the review's counters), and the announcements against the
/// place index and the places' versions — after a transaction's commit, never before, nothing on a
/// rollback.
final class BurgerMapStoreTests: XCTestCase {
    private func store(_ app: Application) -> BurgerMapStore { BurgerMapStore(database: app.db, environment: app.burgerMapEnvironment) }

    private func assertRow(_ row: PlaceRow, matches id: UUID, on db: any Database, file: StaticString = #filePath, line: UInt = #line) async throws {
        let model = try await BurgerPlace.find(id, on: db)
        let place = try XCTUnwrap(model, file: file, line: line)
        XCTAssertEqual(row.id, place.id, file: file, line: line)
        XCTAssertEqual([row.name, row.address, row.phone ?? "-", row.kakaoID ?? "-"],
                       [place.name, place.address, place.phone ?? "-", place.kakaoID ?? "-"], file: file, line: line)
        XCTAssertEqual([row.lat, row.lon], [place.lat, place.lon], file: file, line: line)
        XCTAssertEqual([row.reviewCount, row.ratingSum], [place.reviewCount, place.ratingSum], file: file, line: line)
        XCTAssertEqual(row.coverPhotoID, place.coverPhotoID, file: file, line: line)
        XCTAssertEqual(row.createdBy, place.$createdBy.id, file: file, line: line)
        XCTAssertEqual(row.unverified, place.unverified, file: file, line: line)
        XCTAssertEqual(row.createdAt, place.createdAt, file: file, line: line)
    }

    func testPlacesAreReadAsTheirModelsAndFoundEveryWay() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()  // counts what it adds
            let store = store(app)
            let mina = try await app.member("미나"), joon = try await app.member("준호")
            let cheese = try await store.addPlace(name: "치즈버거 하우스", address: "서울 중구 치즈로 1", at: Coordinate(unchecked: 37.5510, 126.9880),
                                                  phone: "02-123-4567", kakaoID: "12345", unverified: true, by: mina.id)
            let bacon = try await store.addPlace(name: "베이컨 키친", address: "서울 중구 베이컨로 2", at: Coordinate(unchecked: 37.5520, 126.9890),
                                                 phone: nil, kakaoID: nil, unverified: false, by: joon.id)
            let far = try await store.addPlace(name: "부산 치즈 버거", address: "부산 해운대구 1", at: Coordinate(unchecked: 35.16, 129.16),
                                               phone: nil, kakaoID: nil, unverified: false, by: mina.id)
            for place in [cheese, bacon, far] { try await assertRow(place, matches: place.id, on: app.db) }
            XCTAssertTrue(cheese.unverified)

            let byKakao = try await store.place(kakaoID: "12345")
            XCTAssertEqual(byKakao?.id, cheese.id)
            let byObjectID = try await store.placeID(objectID: ObjectID.of(bacon.id))
            XCTAssertEqual(byObjectID, bacon.id)
            let notAnID = try await store.placeID(objectID: "not-an-object-id")
            XCTAssertNil(notAnID)
            let missing = try await store.place(UUID())
            XCTAssertNil(missing)

            // In the order asked, with who added them.
            let inOrder = try await store.places([far.id, UUID(), cheese.id])
            XCTAssertEqual(inOrder.map(\.id), [far.id, cheese.id])
            let listed = try await store.listedPlaces([far.id, UUID(), cheese.id])
            XCTAssertEqual(listed.map(\.id), [far.id, cheese.id])
            XCTAssertEqual(listed.map { $0.creator?.nickname }, ["미나", "미나"])
            XCTAssertEqual(listed.map(\.kakaoID), [nil, "12345"])
            XCTAssertEqual(listed.map(\.createdAt), [far.createdAt, cheese.createdAt])

            // As the LookForRealBurger app lists them: newest first, paged, and by who added them.
            let first = try await store.listedPlaces(CursorPageRequest(limit: 2))
            XCTAssertEqual(first.items.map(\.id), [far.id, bacon.id])
            let second = try await store.listedPlaces(CursorPageRequest(cursor: PageCursor(encoded: try XCTUnwrap(first.nextCursor)), limit: 2))
            XCTAssertEqual(second.items.map(\.id), [cheese.id])
            XCTAssertNil(second.nextCursor)
            let minas = try await store.listedPlaces(CursorPageRequest(limit: 10), addedBy: mina.id)
            XCTAssertEqual(minas.items.map(\.id), [far.id, cheese.id])
            let added = try await store.placesAdded(by: joon.id)
            XCTAssertEqual(added.map(\.id), [bacon.id])

            // A box, with and without words; the points of a box.
            let seoul = BoundingBox(unchecked: 126.9, 37.5, 127.0, 37.6)
            let inSeoul = try await store.places(in: seoul, matching: nil)
            XCTAssertEqual(Set(inSeoul.map(\.id)), [cheese.id, bacon.id])
            let cheeseInSeoul = try await store.places(in: seoul, matching: "치즈버")
            XCTAssertEqual(cheeseInSeoul.map(\.id), [cheese.id], "by the search index, inside the box only")
            let limited = try await store.places(in: seoul, matching: nil, limit: 1)
            XCTAssertEqual(limited.count, 1)
            let points = try await store.points(in: seoul, matching: "버거")
            XCTAssertEqual(points.map(\.lat).sorted(), [37.5510])

            // Ranked search, paged by (rank, id).
            try await store.adjustPlace(far.id, reviews: 2, ratings: 10)
            let ranked = try await store.searchRanked("치즈", CursorPageRequest(limit: 1))
            XCTAssertEqual(ranked.items.map(\.id), [far.id], "two five-star reviews rank first")
            let rest = try await store.searchRanked("치즈", CursorPageRequest(orderedCursor: OrderedPageCursor(encoded: try XCTUnwrap(ranked.nextCursor)), limit: 1))
            XCTAssertEqual(rest.items.map(\.id), [cheese.id])
            do {
                _ = try await store.searchRanked("치즈", CursorPageRequest(cursor: PageCursor(encoded: try XCTUnwrap(first.nextCursor)), limit: 1))
                XCTFail("a newest-first cursor is not a ranked one")
            } catch let error as AppError {
                XCTAssertEqual(error.code, "invalid_cursor")
            }
            let afterAdjust = try await store.place(far.id)
            try await assertRow(try XCTUnwrap(afterAdjust), matches: far.id, on: app.db)
            XCTAssertEqual([afterAdjust?.reviewCount, afterAdjust?.ratingSum], [2, 10])
        }
    }

    func testKakaoIDsVerificationAndCovers() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()  // counts what it adds
            let store = store(app)
            let mina = try await app.member("미나"), joon = try await app.member("준호")
            let place = try await store.addPlace(name: "카카오 버거", address: "서울 1", at: Coordinate(unchecked: 37.55, 126.98), phone: nil,
                                                 kakaoID: nil, unverified: true, by: mina.id)
            let other = try await store.addPlace(name: "다른 버거", address: "서울 2", at: Coordinate(unchecked: 37.56, 126.99), phone: nil,
                                                 kakaoID: "777", unverified: false, by: mina.id)
            try await store.attachKakaoID("555", to: place.id)
            try await store.attachKakaoID("556", to: place.id)
            try await store.attachKakaoID("777", to: place.id)
            let attached = try await store.place(place.id)
            XCTAssertEqual(attached?.kakaoID, "555", "a place keeps the first id it was given")
            try await store.attachKakaoID("555", to: other.id)
            let kept = try await store.place(other.id)
            XCTAssertEqual(kept?.kakaoID, "777", "an id another holds is not taken")

            try await store.verifyPlace(place.id, reviewedBy: mina.id)
            let stillUnverified = try await store.place(place.id)
            XCTAssertEqual(stillUnverified?.unverified, true, "its maker's review does not verify it")
            try await store.verifyPlace(place.id, reviewedBy: joon.id)
            let verified = try await store.place(place.id)
            XCTAssertEqual(verified?.unverified, false)

            let photo = try await app.photo(mina.token)
            try await store.setCover(of: place.id, to: photo)
            let covered = try await store.place(place.id)
            try await assertRow(try XCTUnwrap(covered), matches: place.id, on: app.db)
            XCTAssertEqual(covered?.coverPhotoID, photo)
            let urls = try await store.coverURLs(of: [try XCTUnwrap(covered), other])
            XCTAssertEqual(Array(urls.keys), [place.id])
            XCTAssertTrue(urls[place.id]?.hasPrefix("/uploads/") == true, urls[place.id] ?? "")
            let entry = try await store.indexEntries(only: place.id)
            XCTAssertEqual(entry.map(\.id), [place.id])
            XCTAssertEqual(entry.first?.coverURL, urls[place.id])
            // No review holds the photo: the cover follows the reviews again.
            try await store.refreshCover(of: place.id)
            let uncovered = try await store.place(place.id)
            XCTAssertNil(uncovered?.coverPhotoID)
            let all = try await store.indexEntries(only: nil)
            XCTAssertEqual(Set(all.map(\.id)), [place.id, other.id])
        }
    }

    func testReviewWritesMoveTheirPlace() async throws {
        try await withTestApp { app in
            let store = store(app)
            let mina = try await app.member("미나"), joon = try await app.member("준호")
            let place = try await store.addPlace(name: "리뷰 버거", address: "서울 1", at: Coordinate(unchecked: 37.55, 126.98), phone: nil,
                                                 kakaoID: nil, unverified: true, by: mina.id)
            let photos = [try await app.photo(joon.token), try await app.photo(joon.token)]
            let reviewID = UUID()
            try await store.addReview(id: reviewID, ReviewDraft(placeID: place.id, title: "좋아요", rating: 4, text: "패티", photoIDs: photos), by: joon.id)
            let row = try await store.review(reviewID)
            let model = try await BurgerReview.find(reviewID, on: app.db)
            let review = try XCTUnwrap(model)
            XCTAssertEqual(row?.id, review.id)
            XCTAssertEqual([row?.placeID, row?.authorID], [review.$place.id, review.$author.id])
            XCTAssertEqual([row?.title, row?.text], [review.title, review.text])
            XCTAssertEqual(row?.rating, review.rating)
            XCTAssertEqual(row?.hidden, review.hiddenAt != nil)
            let byObjectID = try await store.review(objectID: ObjectID.of(reviewID))
            XCTAssertEqual(byObjectID?.id, reviewID)

            let placed = try await store.place(place.id)
            XCTAssertEqual([placed?.reviewCount, placed?.ratingSum], [1, 4])
            XCTAssertEqual(placed?.coverPhotoID, photos[0], "the first photo is the cover")
            XCTAssertEqual(placed?.unverified, false, "another account's review verifies it")
            let held = try await store.photos(ofReviews: [reviewID])[reviewID]
            XCTAssertEqual(held?.map(\.id), photos)
            XCTAssertEqual(held?.map(\.position), [0, 1])
            let count = try await store.visibleReviewCount(by: joon.id)
            XCTAssertEqual(count, 1)
            let written = try await store.visibleReviews(by: joon.id)
            XCTAssertEqual(written.map(\.id), [reviewID])

            // A photo already on a review cannot join another: the whole review is refused.
            do {
                try await store.addReview(id: UUID(), ReviewDraft(placeID: place.id, title: "또", rating: 1, text: "", photoIDs: [photos[0]]), by: joon.id)
                XCTFail("a taken photo")
            } catch let error as AppError {
                XCTAssertEqual(error.code, "invalid_photo")
            }
            let unchanged = try await store.place(place.id)
            XCTAssertEqual([unchanged?.reviewCount, unchanged?.ratingSum], [1, 4], "the refused review moved nothing")

            // An edit: the rating moves the sum, a new photo list replaces the old in its order.
            let third = try await app.photo(joon.token)
            try await store.editReview(try XCTUnwrap(row), to: ReviewDraft(placeID: place.id, title: "최고", rating: 5, text: "더 좋아요",
                                                                          photoIDs: [third, photos[1]]), photoIDs: [third, photos[1]])
            let edited = try await store.review(reviewID)
            XCTAssertEqual([edited?.title, edited?.text], ["최고", "더 좋아요"])
            let editedModel = try await BurgerReview.find(reviewID, on: app.db)
            XCTAssertNotNil(editedModel?.updatedAt)
            let afterEdit = try await store.place(place.id)
            XCTAssertEqual([afterEdit?.reviewCount, afterEdit?.ratingSum], [1, 5])
            XCTAssertEqual(afterEdit?.coverPhotoID, third)
            let nowHeld = try await store.photos(ofReviews: [reviewID])[reviewID]
            XCTAssertEqual(nowHeld?.map(\.id), [third, photos[1]])
            let dropped = try await store.photo(photos[0])
            XCTAssertNotNil(dropped)
            XCTAssertNil(dropped?.reviewID, "left out: detached, the caller deletes it")

            // A delete gives back the photos it had and takes the review out of its place.
            let gone = try await store.deleteReview(try XCTUnwrap(edited))
            XCTAssertEqual(gone.map(\.id), [third, photos[1]])
            let afterDelete = try await store.place(place.id)
            XCTAssertEqual([afterDelete?.reviewCount, afterDelete?.ratingSum], [0, 0])
            XCTAssertNil(afterDelete?.coverPhotoID)
            let deletedReview = try await store.review(reviewID)
            XCTAssertNil(deletedReview)
            let deletedPhoto = try await store.photo(third)
            XCTAssertNil(deletedPhoto)
        }
    }

    func testReportsHideAReviewOnceAndARestoreDismissesThem() async throws {
        try await withTestApp { app in
            let store = store(app)
            let author = try await app.member("작성자"), one = try await app.member("하나"), two = try await app.member("둘"), young = try await app.member("새내기")
            try await app.age(one, by: 4 * 86_400)
            try await app.age(two, by: 4 * 86_400)
            let place = try await app.place(author.token)
            let reviewID = try await app.review(author.token, place: place, rating: 5)
            let review = try await store.review(reviewID)
            let rule = BurgerMapStore.ReportRule(reportsToHide: 2, standingAge: 3 * 86_400, standingReviews: 3)

            let youngHid = try await store.addReport(of: try XCTUnwrap(review), reason: "스팸", by: young.id, rule: rule)
            XCTAssertFalse(youngHid)
            let counted = try await store.countedReports(of: reviewID, rule: rule)
            XCTAssertEqual(counted, 0, "a fresh account's report does not count")
            let firstHid = try await store.addReport(of: try XCTUnwrap(review), reason: "스팸", by: one.id, rule: rule)
            XCTAssertFalse(firstHid)
            let reported = try await store.hasReported(reviewID, by: one.id)
            let notReported = try await store.hasReported(reviewID, by: author.id)
            XCTAssertEqual([reported, notReported], [true, false])
            let model = try await BurgerReview.find(reviewID, on: app.db)
            XCTAssertEqual(model?.reportCount, 1)
            do {
                _ = try await store.addReport(of: try XCTUnwrap(review), reason: "또", by: one.id, rule: rule)
                XCTFail("one report per account")
            } catch let error as any DatabaseError where error.isConstraintFailure {}

            let secondHid = try await store.addReport(of: try XCTUnwrap(review), reason: "욕설", by: two.id, rule: rule)
            XCTAssertTrue(secondHid)
            let hidden = try await store.review(reviewID)
            XCTAssertEqual(hidden?.hidden, true)
            let placeHidden = try await store.place(place)
            XCTAssertEqual([placeHidden?.reviewCount, placeHidden?.ratingSum], [0, 0])
            XCTAssertNil(placeHidden?.coverPhotoID, "a hidden review's photo is no cover")
            // Counted with standing from visible reviews too: the young account writes three, aged.
            let seasoned = BurgerMapStore.ReportRule(reportsToHide: 2, standingAge: 0, standingReviews: 3)
            let everyone = try await app.withClock(\.burgerMapEnvironment, ahead: 60) { try await app.burgerMapStore.countedReports(of: reviewID, rule: seasoned) }
            XCTAssertEqual(everyone, 3)

            let shown = try await store.restore(try XCTUnwrap(hidden))
            let again = try await store.restore(try XCTUnwrap(hidden))
            XCTAssertEqual([shown, again], [true, false], "shown once")
            let restored = try await BurgerReview.find(reviewID, on: app.db)
            XCTAssertNil(restored?.hiddenAt)
            XCTAssertEqual(restored?.reportCount, 0)
            let dismissed = try await BurgerReport.query(on: app.db).filter(\.$review.$id == reviewID).all()
            XCTAssertEqual(dismissed.count, 3)
            XCTAssertTrue(dismissed.allSatisfy { $0.dismissedAt != nil })
            let afterRestore = try await store.countedReports(of: reviewID, rule: rule)
            XCTAssertEqual(afterRestore, 0, "dismissed reports no longer count")
            let placeShown = try await store.place(place)
            XCTAssertEqual([placeShown?.reviewCount, placeShown?.ratingSum], [1, 5])
            XCTAssertNotNil(placeShown?.coverPhotoID)
        }
    }

    func testCommentsAndReactionsMoveTheirReviewsCounters() async throws {
        try await withTestApp { app in
            let store = store(app)
            let mina = try await app.member("미나"), joon = try await app.member("준호")
            let place = try await app.place(mina.token)
            let reviewID = try await app.review(mina.token, place: place)
            let firstID = try await store.addComment("첫 댓글", on: reviewID, by: joon.id)
            let secondID = try await store.addComment("둘째 댓글", on: reviewID, by: mina.id)
            let counted = try await BurgerReview.find(reviewID, on: app.db)
            XCTAssertEqual(counted?.commentCount, 2)

            let row = try await store.comment(firstID)
            let model = try await BurgerComment.query(on: app.db).filter(\.$id == firstID).with(\.$author).first()
            let comment = try XCTUnwrap(model)
            XCTAssertEqual(row?.id, comment.id)
            XCTAssertEqual([row?.text, row?.author.nickname], [comment.text, comment.author.nickname])
            XCTAssertEqual(row?.author.id, comment.$author.id)
            XCTAssertEqual(row?.reviewID, comment.$review.id)
            XCTAssertEqual(row?.createdAt, comment.createdAt)
            let byObjectID = try await store.comment(objectID: ObjectID.of(secondID))
            XCTAssertEqual(byObjectID?.text, "둘째 댓글")

            let page1 = try await store.comments(on: reviewID, CursorPageRequest(limit: 1))
            XCTAssertEqual(page1.items.map(\.id), [secondID], "newest first")
            let page2 = try await store.comments(on: reviewID, CursorPageRequest(cursor: PageCursor(encoded: try XCTUnwrap(page1.nextCursor)), limit: 1))
            XCTAssertEqual(page2.items.map(\.id), [firstID])
            let whole = try await store.comments(ofReviews: [reviewID, UUID()])
            XCTAssertEqual(whole[reviewID]?.map(\.id), [secondID, firstID])

            try await store.editComment(firstID, text: "고친 댓글")
            let edited = try await store.comment(firstID)
            XCTAssertEqual(edited?.text, "고친 댓글")
            XCTAssertGreaterThan(try XCTUnwrap(edited?.updatedAt), try XCTUnwrap(edited?.createdAt))

            try await store.deleteComment(try XCTUnwrap(edited))
            try await store.deleteComment(try XCTUnwrap(edited))
            let afterDelete = try await BurgerReview.find(reviewID, on: app.db)
            XCTAssertEqual(afterDelete?.commentCount, 1, "a second delete of the same comment takes nothing off")

            let liked = try await store.react(.like, on: reviewID, by: joon.id, to: true)
            let likedAgain = try await store.react(.like, on: reviewID, by: joon.id, to: true)
            let bookmarked = try await store.react(.bookmark, on: reviewID, by: joon.id, to: true)
            XCTAssertEqual([liked, likedAgain, bookmarked], [true, false, true])
            let reacted = try await BurgerReview.find(reviewID, on: app.db)
            XCTAssertEqual([reacted?.likeCount, reacted?.bookmarkCount], [1, 1])
            _ = try await store.react(.like, on: reviewID, by: joon.id, to: false)
            _ = try await store.react(.like, on: reviewID, by: joon.id, to: false)
            let unliked = try await BurgerReview.find(reviewID, on: app.db)
            XCTAssertEqual([unliked?.likeCount, unliked?.bookmarkCount], [0, 1])

            // The app's shop posts: each place's visible reviews as "comments" naming them.
            let asComments = try await store.reviewsAsComments(ofPlaces: [place])
            XCTAssertEqual(asComments[place]?.map(\.text), [ObjectID.of(reviewID)])
            XCTAssertEqual(asComments[place]?.first?.author.nickname, "미나")
        }
    }

    func testPhotos() async throws {
        try await withTestApp { app in
            let store = store(app)
            let mina = try await app.member("미나")
            let uploaded = try await app.photo(mina.token)
            let drawn = try await store.addPhoto(owner: mina.id, fileKey: nil, artwork: "🍔|#FDE68A", width: 800, height: 600)
            for id in [uploaded, drawn.id] {
                let row = try await store.photo(id)
                let model = try await BurgerPhoto.find(id, on: app.db)
                let photo = try XCTUnwrap(model)
                XCTAssertEqual(row?.id, photo.id)
                XCTAssertEqual([row?.ownerID, row?.reviewID], [photo.$owner.id, photo.reviewID])
                XCTAssertEqual([row?.fileKey, row?.artwork], [photo.fileKey, photo.artwork])
                XCTAssertEqual([row?.width, row?.height, row?.position], [photo.width, photo.height, photo.position])
            }
            let pending = try await store.pendingPhotoCount(of: mina.id)
            XCTAssertEqual(pending, 2)
            let uploadedRow = try await store.photo(uploaded)
            let fileKey = try XCTUnwrap(uploadedRow?.fileKey)
            let used = try await BurgerMapStore.photoUses(fileKey: fileKey, on: app.db)
            let unused = try await BurgerMapStore.photoUses(fileKey: "no-such-key", on: app.db)
            XCTAssertEqual([used, unused], [true, false])
            let notYet = try await store.abandonedPhotos(before: Date().addingTimeInterval(-60), limit: 10)
            XCTAssertEqual(notYet.count, 0)
            let abandoned = try await store.abandonedPhotos(before: Date().addingTimeInterval(60), limit: 1)
            XCTAssertEqual(abandoned.count, 1, "at most the limit")
            try await store.deletePhoto(drawn.id)
            let left = try await store.pendingPhotoCount(of: mina.id)
            XCTAssertEqual(left, 1)
        }
    }

    func testSuggestionsAreKeptOncePerReasonAndListedWithTheirPlace() async throws {
        try await withTestApp { app in
            let store = store(app)
            let mina = try await app.member("미나")
            let place = try await store.addPlace(name: "제안 버거", address: "서울 1", at: Coordinate(unchecked: 37.55, 126.98), phone: nil,
                                                 kakaoID: nil, unverified: false, by: mina.id)
            let registration = PlaceRegistration(name: "제안 버거", address: "서울 2", phone: "02-1", at: Coordinate(unchecked: 37.5501, 126.9801),
                                                 kakaoID: "9", by: mina.id)
            let window = Date().addingTimeInterval(-3_600)
            try await store.addSuggestion(registration, for: place.id, reasons: ["address"], unlessSince: window)
            try await store.addSuggestion(registration, for: place.id, reasons: ["address"], unlessSince: window)
            try await store.addSuggestion(registration, for: place.id, reasons: ["address", "phone"], unlessSince: window)
            let page = try await store.suggestions(CursorPageRequest(limit: 1))
            XCTAssertEqual(page.items.map(\.reasons), [["address", "phone"]], "newest first")
            XCTAssertEqual(page.items.first?.place?.name, "제안 버거")
            XCTAssertEqual(page.items.first?.suggestedBy, mina.id)
            XCTAssertEqual(page.items.first?.kakaoID, "9")
            let next = try await store.suggestions(CursorPageRequest(cursor: PageCursor(encoded: try XCTUnwrap(page.nextCursor)), limit: 5))
            XCTAssertEqual(next.items.map(\.reasons), [["address"]], "the repeat within the window was not kept")
            let model = try await BurgerPlaceSuggestion.find(next.items[0].id, on: app.db)
            XCTAssertEqual(model?.address, next.items[0].address)
            XCTAssertEqual(model?.createdAt, next.items[0].createdAt)
        }
    }

    /// Writes inside a transaction are announced once it committed (the index re-reads the place
    /// then, not before), a rollback announces nothing, and a write outside one at once.
    func testAnnouncementsFollowTheCommit() async throws {
        try await withTestApp { app in
            let store = store(app)
            let mina = try await app.member("미나")
            let place = try await store.addPlace(name: "알림 버거", address: "서울 1", at: Coordinate(unchecked: 37.55, 126.98), phone: nil,
                                                 kakaoID: nil, unverified: false, by: mina.id)
            try await app.placeIndex.reload(from: store)
            let box = BoundingBox(unchecked: 126.9, 37.5, 127.0, 37.6)
            let index = app.placeIndex, placeID = place.id
            @Sendable func indexed() -> Int? { index.entries(in: box).first { $0.id == placeID }?.reviewCount }
            let before = app.placeVersions.version(of: place.id)

            try await store.transaction { inside in
                try await inside.adjustPlace(place.id, reviews: 1, ratings: 4)
                await inside.announcements.placesChanged([place.id], store: inside)
                XCTAssertEqual(indexed(), 0, "not announced before the commit")
            }
            XCTAssertEqual(indexed(), 1, "announced once committed")
            XCTAssertNotEqual(app.placeVersions.version(of: place.id), before)

            // (Versions are not compared from here: on PostgreSQL this instance's own announcements
            // come back over the bus a moment later and move them again.)
            struct Rollback: Error {}
            do {
                try await store.transaction { inside in
                    try await inside.adjustPlace(place.id, reviews: 1, ratings: 4)
                    await inside.announcements.placesChanged([place.id], store: inside)
                    throw Rollback()
                }
            } catch is Rollback {}
            XCTAssertEqual(indexed(), 1, "a rollback announces nothing")

            try await store.adjustPlace(place.id, reviews: 1, ratings: 4)
            try await store.refreshCover(of: place.id)
            XCTAssertEqual(indexed(), 2, "a write outside a transaction is announced at once")
        }
    }

    /// Before an account's rows go by cascade, the numbers others keep about them move.
    func testSettlingAnAccountsRemoval() async throws {
        try await withTestApp { app in
            let store = store(app)
            let mina = try await app.member("미나"), joon = try await app.member("준호")
            let place = try await app.place(mina.token)
            let minasReview = try await app.review(mina.token, place: place, rating: 3)
            _ = try await app.review(joon.token, place: place, rating: 5)   // the newest: its photo is the cover
            _ = try await store.react(.like, on: minasReview, by: joon.id, to: true)
            _ = try await store.react(.bookmark, on: minasReview, by: joon.id, to: true)
            _ = try await store.addComment("좋아요", on: minasReview, by: joon.id)
            try await app.age(joon, by: 4 * 86_400)
            let reported = try await store.review(minasReview)
            _ = try await store.addReport(of: try XCTUnwrap(reported), reason: "스팸", by: joon.id, rule: BurgerMapService.reportRule)

            try await store.settleRemoval(of: joon.id)
            let settledPlace = try await store.place(place)
            XCTAssertEqual([settledPlace?.reviewCount, settledPlace?.ratingSum], [1, 3])
            let minasPhoto = try await store.photos(ofReviews: [minasReview])[minasReview]?.first?.id
            XCTAssertEqual(settledPlace?.coverPhotoID, minasPhoto, "the next newest visible review's photo")
            let review = try await BurgerReview.find(minasReview, on: app.db)
            XCTAssertEqual([review?.likeCount, review?.bookmarkCount, review?.commentCount, review?.reportCount], [0, 0, 0, 0])
        }
    }
}
