package import Accounts
package import Fluent
import Notifications
package import Platform
import SQLKit
import Vapor

/// A person's page: who they are and how much they do on the map.
package struct MapProfile: Sendable {
    package let id: UUID
    package let nickname: String
    package let profileImageKey: String?
    package let reviewCount: Int
    package let followerCount: Int
    package let followingCount: Int
    package let eatenCount: Int
    package let followedByMe: Bool
}

/// What a person's page counts, the same for every reader.
struct MapProfileCounts: Sendable {
    let reviews: Int
    let followers: Int
    let following: Int
    let eaten: Int
}

/// A place's detail: its own fields, how many people marked it, and the reader's marks.
package struct PlaceDetail: Sendable {
    package let summary: PlaceSummary
    package let eatenCount: Int
    package let wantCount: Int
    package let myMarks: [BurgerMark.Kind]
}

extension BurgerMapService {
    // MARK: Comments

    package func comments(on reviewID: UUID, viewer: MapActor?, _ page: CursorPageRequest) async throws -> (items: [CommentRow], nextCursor: String?) {
        _ = try await review(reviewID, viewer: viewer)
        return try await store.comments(on: reviewID, page)
    }

    /// Comments on a review (10 a minute per account); its author hears of it, once while unread
    /// however many comments the same person adds.
    package func addComment(_ rawText: String, on reviewID: UUID, by actor: MapActor) async throws -> CommentRow {
        let text = try checkedComment(rawText)
        let card = try await review(reviewID, viewer: actor)
        try await limits.comments.reserve(actor.id.uuidString, code: "too_many_comments")
        let id = try await store.addComment(text, on: reviewID, by: actor.id)
        try await inbox.post(NotificationDraft(recipient: card.authorID, actor: actor.id, service: Self.service, kind: "review_commented",
                                               subjectID: reviewID, link: MapPath.review(reviewID), excerpt: text,
                                               collapsesUnread: true))
        return try await self.comment(id)
    }

    /// Only a comment's author edits it.
    package func editComment(_ id: UUID, text rawText: String, by actor: MapActor) async throws -> CommentRow {
        let text = try checkedComment(rawText)
        let comment = try await self.comment(id)
        guard comment.author.id == actor.id else { throw AppError(.forbidden, "not_comment_author") }
        try await store.editComment(id, text: text)
        // Words taken out by the edit leave the inbox's quote too.
        if let reviewID = comment.reviewID { try await inbox.forgetWords(of: actor.id, kind: "review_commented", subject: reviewID) }
        return try await self.comment(id)
    }

    /// A comment's author, the review's author or an admin deletes it. An admin deleting a comment
    /// that is neither theirs nor on their own review is audited (`burger_map.comment.delete`, with
    /// its author and first words), with the deletion.
    package func deleteComment(_ id: UUID, by actor: MapActor) async throws {
        let comment = try await self.comment(id)
        var reviewAuthor: UUID?
        if let reviewID = comment.reviewID { reviewAuthor = try await store.review(reviewID)?.authorID }
        guard comment.author.id == actor.id || reviewAuthor == actor.id || actor.isAdmin else {
            throw AppError(.forbidden, "not_comment_author")
        }
        let ownRight = comment.author.id == actor.id || reviewAuthor == actor.id
        let audit = ownRight ? nil : AuditEntry(
            actorID: actor.id, action: "burger_map.comment.delete", subjectType: "burger_comment", subjectID: id.uuidString,
            before: ["author": comment.author.id.uuidString, "text": Self.firstWords(comment.text), "review": comment.reviewID?.uuidString ?? ""],
            after: nil, at: environment.now())
        try await store.deleteComment(comment, audit: audit)
        // Its words leave the review author's inbox too.
        if let reviewID = comment.reviewID { try await inbox.forgetWords(of: comment.author.id, kind: "review_commented", subject: reviewID) }
    }

    /// A comment on a visible review; 404 otherwise.
    package func comment(_ id: UUID) async throws -> CommentRow {
        guard let comment = try await store.comment(id), let reviewID = comment.reviewID,
              let review = try await store.review(reviewID), !review.hidden
        else { throw AppError.notFound("comment_not_found") }
        return comment
    }

    /// The start of a text as the audit log keeps it: enough to recognise, not the whole of it.
    static func firstWords(_ text: String, limit: Int = 40) -> String {
        guard text.count > limit else { return text }
        let cut = text.prefix(limit)
        // At a word's end when there is one in the second half.
        let end = cut.lastIndex(where: \.isWhitespace).flatMap { cut.distance(from: cut.startIndex, to: $0) > limit / 2 ? $0 : nil } ?? cut.endIndex
        return String(cut[..<end]).trimmingCharacters(in: .whitespaces) + "…"
    }

    private func checkedComment(_ raw: String) throws -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        do { try BurgerMapRules.checkComment(text) } catch { throw Self.appError(error) }
        return text
    }

    // MARK: Marks

    /// A place with its mark counts, and the viewer's own marks. The shared part is kept until the
    /// next write (`keptPlaceDetails`); a signed-in viewer costs one query for their marks.
    package func placeDetail(_ id: UUID, viewer: UUID?) async throws -> PlaceDetail {
        let shared = try await keptPlaceDetails.value("place:\(id)") { try await sharedPlaceDetail(id) }
        guard let viewer else { return shared }
        let mine = try await environment.keptViewerMarks.value("\(viewer):\(id)") { try await people.marks(on: id, by: viewer) }
        return PlaceDetail(summary: shared.summary, eatenCount: shared.eatenCount, wantCount: shared.wantCount, myMarks: mine)
    }

    private func sharedPlaceDetail(_ id: UUID) async throws -> PlaceDetail {
        let place = try await self.place(id)
        let counts = try await people.markCounts(on: id)
        return PlaceDetail(summary: try await summaries([place])[0], eatenCount: counts[.eaten] ?? 0, wantCount: counts[.want] ?? 0, myMarks: [])
    }

    /// Sets or clears "eaten" or "want to go"; twice is the same as once.
    package func setMark(_ kind: BurgerMark.Kind, on placeID: UUID, to on: Bool, by userID: UUID) async throws -> PlaceDetail {
        _ = try await place(placeID)
        try await people.setMark(kind, on: placeID, by: userID, to: on)
        return try await placeDetail(placeID, viewer: userID)
    }

    package func marks(_ kind: BurgerMark.Kind, of userID: UUID, _ page: CursorPageRequest) async throws -> (items: [PlaceSummary], nextCursor: String?) {
        let marked = try await people.markedPlaces(kind, by: userID, page)
        return (try await summaries(try await store.places(marked.items)), marked.nextCursor)
    }

    /// Reviews I liked or bookmarked, the latest first (hidden ones left out).
    package func reactions(_ kind: BurgerReaction.Kind, of userID: UUID, _ page: CursorPageRequest) async throws -> (items: [ReviewCard], nextCursor: String?) {
        let reacted = try await people.reactedReviews(kind, by: userID, page)
        return (try await cards.cards(reacted.items, viewer: userID), reacted.nextCursor)
    }

    // MARK: People

    package func person(_ id: UUID) async throws -> AccountStore.JoinedPerson {
        guard let person = try await AccountStore.person(id, on: database) else { throw AppError.notFound("user_not_found") }
        return person
    }

    /// A person's page: their account, their counts (kept until the map's next write,
    /// `keptProfileCounts`) and whether the viewer follows them.
    /// The account's name and picture and whether the viewer follows them are one written-out
    /// statement (the whole `User` model and a follow query were two thirds of the page, 0.12×).
    /// Kept by the map cache's rule per reader: a follow is a content write, and a changed account
    /// (a new name or picture) moves the map's cache too (`BurgerMapFeature.configure`).
    package func profile(of id: UUID, viewer: UUID?) async throws -> MapProfile {
        try await environment.keptProfiles.value("\(viewer?.uuidString ?? "-"):\(id)") { try await readProfile(of: id, viewer: viewer) }
    }

    private func readProfile(of id: UUID, viewer: UUID?) async throws -> MapProfile {
        let followed: SQLQueryString = viewer.map { BurgerPeopleStore.follows(by: $0, personRole: "person") } ?? "0"
        guard let row = try await AccountStore.selectPerson("person", id: id, adding: "\(followed) AS followed", on: database.sql).first()
        else { throw AppError.notFound("user_not_found") }
        let person = try AccountStore.person("person", id: id, in: row)
        let counts = try await keptProfileCounts.value("profile:\(id)") { try await profileCounts(of: id) }
        return MapProfile(id: id, nickname: person.nickname, profileImageKey: person.profileImageKey,
                          reviewCount: counts.reviews, followerCount: counts.followers, followingCount: counts.following,
                          eatenCount: counts.eaten, followedByMe: try row.decode(column: "followed", as: Int.self) > 0)
    }

    private func profileCounts(of id: UUID) async throws -> MapProfileCounts {
        MapProfileCounts(
            reviews: try await store.visibleReviewCount(by: id),
            followers: try await people.followCounts(of: id).followers,
            following: try await people.followCounts(of: id).following,
            eaten: try await people.markCount(.eaten, by: id))
    }

    /// Follows or unfollows; following oneself is refused, following twice is following once.
    /// A new follow tells the person followed.
    package func setFollow(_ followeeID: UUID, to on: Bool, by followerID: UUID) async throws -> MapProfile {
        _ = try await person(followeeID)
        guard followeeID != followerID else { throw AppError.invalid("cannot_follow_self") }
        if on {
            if try await people.addFollow(of: followeeID, by: followerID) {
                try await inbox.post(NotificationDraft(recipient: followeeID, actor: followerID, service: Self.service, kind: "followed",
                                                       subjectID: followerID, link: MapPath.user(followerID), once: true))
            }
        } else {
            try await people.removeFollow(of: followeeID, by: followerID)
        }
        return try await profile(of: followeeID, viewer: followerID)
    }

    /// Everyone following `id` (`following` false) or followed by `id` (true), newest first, at most
    /// `limit`: the LookForRealBurger app shows a profile's lists whole.
    package func follows(of id: UUID, following: Bool, limit: Int = 5_000) async throws -> [AccountStore.JoinedPerson] {
        try await people.followPeople(of: id, following: following, limit: limit).items
    }

    /// The ids of the places `id` added and of their visible reviews, newest first.
    package func contributions(of id: UUID) async throws -> [UUID] {
        let written = try await store.visibleReviews(by: id) + store.placesAdded(by: id)
        return written.sorted { ($0.createdAt ?? .distantPast) > ($1.createdAt ?? .distantPast) }.map(\.id)
    }

    package func followers(of id: UUID, _ page: CursorPageRequest) async throws -> (items: [AccountStore.JoinedPerson], nextCursor: String?) {
        _ = try await person(id)
        return try await people.followPeople(of: id, following: false, page)
    }

    package func following(of id: UUID, _ page: CursorPageRequest) async throws -> (items: [AccountStore.JoinedPerson], nextCursor: String?) {
        _ = try await person(id)
        return try await people.followPeople(of: id, following: true, page)
    }
}
