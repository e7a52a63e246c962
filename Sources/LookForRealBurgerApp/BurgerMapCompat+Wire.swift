package import Accounts
package import BurgerMap
import Media
import Notifications
import Platform
package import Vapor

// The LookForRealBurger app's JSON (`../shared/contracts/lslp-burger-api.md` §2), keys as it
// decodes them. Optional fields the post never had are left out (`price` of a shop, `content2…5`
// of a review), never sent empty; arrays are always there; times are `JavaScriptDate` strings.

package struct LSLPJoined: Content {
    package let user_id: String
    package let email: String
    package let nick: String
}

package struct LSLPLoggedIn: Content {
    package let user_id: String
    package let email: String
    package let nick: String
    package let accessToken: String
    package let refreshToken: String
}

/// A person as posts, comments and profiles name them; `profileImage` a path the app loads with
/// `v1/` before it, as it loads photos.
package struct LSLPPerson: Content {
    package let user_id: String
    package let nick: String
    let profileImage: String?

    package init(id: UUID, nick: String, imageKey: String?) {
        user_id = ObjectID.of(id)
        self.nick = nick
        profileImage = imageKey.map { "uploads/profiles/\($0)" }
    }

    package init(_ user: User) {
        self.init(id: user.id ?? UUID(), nick: user.nickname, imageKey: user.profileImageKey)
    }

    package init(_ person: AccountStore.JoinedPerson) {
        self.init(id: person.id, nick: person.nickname, imageKey: person.profileImageKey)
    }

    package init(_ person: PersonRow) {
        self.init(id: person.id, nick: person.nickname, imageKey: person.imageKey)
    }

    /// The creator of a place nobody added (the catalog a new install starts with): the app needs one.
    package static let catalog = LSLPPerson(id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), nick: "WhatWeEat", imageKey: nil)
}

package struct LSLPFollow: Content {
    package let nick: String
    let opponent_nick: String
    let following_status: Bool
}

/// A profile: `email` only on my own; `posts` are the ids of every place and review the person
/// added, the apps' "posts" of both kinds.
package struct LSLPProfile: Content {
    package let user_id: String
    package let email: String?
    package let nick: String
    package let followers: [LSLPPerson]
    package let following: [LSLPPerson]
    package let posts: [String]
}

package struct LSLPComment: Content {
    let comment_id: String
    package let content: String
    package let createdAt: String
    let creator: LSLPPerson

    package init(_ row: CommentRow) {
        comment_id = ObjectID.of(row.id)
        content = row.text
        createdAt = JavaScriptDate.string(row.createdAt)
        creator = LSLPPerson(row.author)
    }
}

/// A post (§2.1): a shop, a review, or the donation.
package struct LSLPPost: Content {
    package let post_id: String
    package let product_id: String
    package let title: String
    package let price: Int?
    package let content: String
    package let content1: String
    package let content2: String?
    package let content3: String?
    package let content4: String?
    package let content5: String?
    package let createdAt: String
    let creator: LSLPPerson
    package let files: [String]
    package let likes: [String]
    let likes2: [String]
    let buyers: [String]
    let hashTags: [String]
    package let comments: [LSLPComment]

    package init(post_id: String, product_id: String, title: String, price: Int?, content: String, content1: String,
                 content2: String?, content3: String?, content4: String?, content5: String?, createdAt: String,
                 creator: LSLPPerson, files: [String], likes: [String], likes2: [String], buyers: [String],
                 hashTags: [String], comments: [LSLPComment]) {
        self.post_id = post_id
        self.product_id = product_id
        self.title = title
        self.price = price
        self.content = content
        self.content1 = content1
        self.content2 = content2
        self.content3 = content3
        self.content4 = content4
        self.content5 = content5
        self.createdAt = createdAt
        self.creator = creator
        self.files = files
        self.likes = likes
        self.likes2 = likes2
        self.buyers = buyers
        self.hashTags = hashTags
        self.comments = comments
    }
}

/// A page of posts: `next_cursor` is `"0"` on the last page, our opaque cursor otherwise.
struct LSLPPostPage: Content {
    let data: [LSLPPost]
    let next_cursor: String

    init(data: [LSLPPost], nextCursor: String?) {
        self.data = data
        next_cursor = nextCursor ?? LSLPPostRules.lastPage
    }
}

/// A page of posts written by hand (`JSONBytes`): the app's map asks for every shop at once, each
/// with its reviews, and Foundation's encoder was most of that answer's cost. The same JSON as the
/// `Content` encoding (keys sorted, optional fields left out); `JSONBytesTests` compares the two.
extension LSLPPostPage {
    func json() -> JSONBytes {
        var json = JSONBytes(capacity: 1_024 * data.count + 64)
        json.raw("{\"data\":")
        json.list(data) { json, post in Self.write(post: post, into: &json) }
        json.raw(",\"next_cursor\":")
        json.string(next_cursor)
        json.raw("}")
        return json
    }

    static func write(post: LSLPPost, into json: inout JSONBytes) {
        json.raw("{\"buyers\":")
        json.strings(post.buyers)
        json.raw(",\"comments\":")
        json.list(post.comments) { json, comment in
            json.raw("{\"comment_id\":")
            json.string(comment.comment_id)
            json.raw(",\"content\":")
            json.string(comment.content)
            json.raw(",\"createdAt\":")
            json.string(comment.createdAt)
            json.raw(",\"creator\":")
            write(person: comment.creator, into: &json)
            json.raw("}")
        }
        json.raw(",\"content\":")
        json.string(post.content)
        json.raw(",\"content1\":")
        json.string(post.content1)
        if let value = post.content2 { json.raw(",\"content2\":"); json.string(value) }
        if let value = post.content3 { json.raw(",\"content3\":"); json.string(value) }
        if let value = post.content4 { json.raw(",\"content4\":"); json.string(value) }
        if let value = post.content5 { json.raw(",\"content5\":"); json.string(value) }
        json.raw(",\"createdAt\":")
        json.string(post.createdAt)
        json.raw(",\"creator\":")
        write(person: post.creator, into: &json)
        json.raw(",\"files\":")
        json.strings(post.files)
        json.raw(",\"hashTags\":")
        json.strings(post.hashTags)
        json.raw(",\"likes\":")
        json.strings(post.likes)
        json.raw(",\"likes2\":")
        json.strings(post.likes2)
        json.raw(",\"post_id\":")
        json.string(post.post_id)
        if let price = post.price { json.raw(",\"price\":"); json.int(price) }
        json.raw(",\"product_id\":")
        json.string(post.product_id)
        json.raw(",\"title\":")
        json.string(post.title)
        json.raw("}")
    }

    static func write(person: LSLPPerson, into json: inout JSONBytes) {
        json.raw("{\"nick\":")
        json.string(person.nick)
        if let image = person.profileImage { json.raw(",\"profileImage\":"); json.string(image) }
        json.raw(",\"user_id\":")
        json.string(person.user_id)
        json.raw("}")
    }
}

struct LSLPLikeStatus: Content {
    let like_status: Bool
}

package struct LSLPFiles: Content {
    package let files: [String]
}

/// The answer to a payment check (`PaymentResponseDTO`).
struct LSLPPayment: Content {
    let buyer_id: String
    let post_id: String
    let merchant_uid: String
    let productName: String
    let price: Int
    let paidAt: String
}

/// Our places and reviews as the app's posts. Everything a page of posts shows beside our own rows
/// (everyone who liked, bookmarked or marked them — the app's `likes`/`likes2` arrays hold people,
/// not counts —, each review's comments, each place's reviews as its "comments") is read from the
/// map's stores in one go per kind, one query per 500 posts.
struct LSLPPostWriter {
    let map: BurgerMapService

    // MARK: Reads

    /// Places newest first, with who added each; those `addedBy` one person when given.
    func places(_ page: CursorPageRequest, addedBy: UUID? = nil) async throws -> (items: [ListedPlace], nextCursor: String?) {
        try await map.store.listedPlaces(page, addedBy: addedBy)
    }

    func place(_ id: UUID) async throws -> ListedPlace? {
        try await map.store.listedPlaces([id]).first
    }

    /// Places someone marked (`eaten` is the app's `likes`, `want` its `likes2`), the latest first.
    func markedPlaces(_ kind: BurgerMark.Kind, of userID: UUID, _ page: CursorPageRequest) async throws -> (items: [ListedPlace], nextCursor: String?) {
        let marked = try await map.people.markedPlaces(kind, by: userID, page)
        return (try await map.store.listedPlaces(marked.items), marked.nextCursor)
    }

    // MARK: Posts

    func posts(of cards: [ReviewCard]) async throws -> [LSLPPost] {
        let ids = cards.map(\.id)
        let reactors = try await map.people.reactors(ofReviews: ids)
        let comments = try await map.store.comments(ofReviews: ids)
        return cards.map { card in
            LSLPPost(post_id: ObjectID.of(card.id), product_id: LSLPPostRules.Product.review.rawValue, title: card.title,
                     price: card.rating, content: card.text, content1: ObjectID.of(card.placeID),
                     content2: nil, content3: nil, content4: nil, content5: nil,
                     createdAt: JavaScriptDate.string(card.createdAt),
                     creator: LSLPPerson(id: card.authorID, nick: card.authorNickname, imageKey: card.authorImageKey),
                     files: card.photos.map { Self.path(photoID: $0.id, fileKey: $0.fileKey) },
                     likes: (reactors[card.id]?[.like] ?? []).map(ObjectID.of),
                     likes2: (reactors[card.id]?[.bookmark] ?? []).map(ObjectID.of),
                     buyers: [], hashTags: LSLPPostRules.hashTags(in: card.text),
                     comments: (comments[card.id] ?? []).map(LSLPComment.init))
        }
    }

    /// A shop: `content1` longitude, `content2` latitude, `content3` the address, `content4` the
    /// phone (`""` without one: the app drops a shop without it), `content5` the Kakao place id, or
    /// for a place the app never registered its own 24-hex id (no Kakao id looks like it). `likes`
    /// are the people who ate there, `likes2` those who want to go; `comments` its reviews.
    func posts(of places: [ListedPlace]) async throws -> [LSLPPost] {
        let ids = places.map(\.id)
        let markers = try await map.people.markers(ofPlaces: ids)
        let reviews = try await map.store.reviewsAsComments(ofPlaces: ids)
        return places.map { place in
            LSLPPost(post_id: ObjectID.of(place.id), product_id: LSLPPostRules.Product.place.rawValue, title: place.name, price: nil,
                     content: LSLPPostRules.shopContent(name: place.name), content1: LSLPPostRules.coordinateText(place.lon),
                     content2: LSLPPostRules.coordinateText(place.lat), content3: place.address, content4: place.phone ?? "",
                     content5: place.kakaoID ?? ObjectID.of(place.id), createdAt: JavaScriptDate.string(place.createdAt),
                     creator: place.creator.map(LSLPPerson.init) ?? .catalog, files: [],
                     likes: (markers[place.id]?[.eaten] ?? []).map(ObjectID.of),
                     likes2: (markers[place.id]?[.want] ?? []).map(ObjectID.of),
                     buyers: [], hashTags: LSLPPostRules.hashTags(in: LSLPPostRules.shopContent(name: place.name)),
                     comments: (reviews[place.id] ?? []).map(LSLPComment.init))
        }
    }

    /// The post the app's "후원하기" pays for; its buyers are everyone who donated.
    func donationPost(title: String, content: String) async throws -> LSLPPost {
        LSLPPost(post_id: ObjectID.of(BurgerDonations.postID), product_id: LSLPPostRules.donationProduct, title: title,
                 price: BurgerDonations.amount, content: content, content1: "", content2: nil, content3: nil, content4: nil, content5: nil,
                 createdAt: JavaScriptDate.string(BurgerDonations.postedAt), creator: .catalog, files: [], likes: [], likes2: [],
                 buyers: try await BurgerDonations(database: map.database).donors().map(ObjectID.of), hashTags: [], comments: [])
    }

    /// `uploads/posts/<photo id>.<jpg|png|webp>`, the extension its stored file's; the catalog's
    /// drawn photos (no file) are `.svg`.
    /// The path the app reads a photo at: an upload by its own type, a drawn one as `.jpg` (what
    /// the app is served for it, `postImage`).
    static func path(photoID: UUID, fileKey: String?) -> String {
        LSLPPostRules.filePath(photoID: photoID, fileExtension: fileKey.flatMap { $0.split(separator: ".").last.map(String.init) } ?? "jpg")
    }
}
