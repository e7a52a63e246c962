package import Accounts
import BurgerMap
import Fluent
import FluentKit
import Platform
package import Vapor

/// The LSLP `/v1` routes the LookForRealBurger app calls (`../shared/contracts/lslp-burger-api.md`),
/// over our accounts and the burger map. The app's conventions, kept: `SesacKey` on every call
/// (`LSLP_API_KEYS`, else 420), the raw access token in `Authorization` (419 when it expired, and
/// then `GET /v1/auth/refresh` with the stale token and the refresh token, which stays valid: the
/// app never stores a new one), 200 for every success, creates included, `{"message"}` bodies for
/// errors, ids as 24 hex digits (`ObjectID`). docs/BURGER_MAP.md, "Pointing the LookForRealBurger
/// app at this server".
///
/// Shops and reviews are the app's "posts" (`BurgerMapCompatPosts`); likes, comments, photos and
/// the donation are in `BurgerMapCompatActions`; the handlers here are accounts, profiles, follows.
package struct BurgerMapCompatRoutes: RouteCollection {
    package func boot(routes: any RoutesBuilder) throws {
        let v1 = routes.grouped("v1").grouped(LSLPErrors(), LSLPKeyCheck())
        v1.post("validation", "email", use: checkEmail)
        v1.post("users", "join", use: join)
        v1.post("users", "login", use: logIn)
        v1.get("auth", "refresh", use: refresh)
        // Images: the app's image loader sends the token but never refreshes it (checked inside).
        v1.get("uploads", "posts", ":file", use: postImage)
        v1.get("uploads", "profiles", ":key", use: profileImage)

        let signedIn = v1.grouped(LSLPAuthentication())
        signedIn.get("users", "me", "profile", use: myProfile)
        signedIn.get("users", ":user", "profile", use: profile)
        signedIn.post("follow", ":user") { try await follow($0, on: true) }
        signedIn.delete("follow", ":user") { try await follow($0, on: false) }

        signedIn.get("posts", use: posts)
        signedIn.post("posts", use: addPost)
        signedIn.get("posts", ":post", use: post)
        signedIn.put("posts", ":post", use: editPost)
        signedIn.delete("posts", ":post", use: deletePost)
        signedIn.get("posts", "users", ":user", use: userPosts)
        // The app's upload: at most 5 JPEGs, under 5 MB in all (deploy/'s nginx takes 6 MB bodies).
        signedIn.on(.POST, "posts", "files", body: .collect(maxSize: "6mb"), use: uploadFiles)
        signedIn.post("posts", ":post", "like") { try await setLike($0, second: false) }
        signedIn.post("posts", ":post", "like-2") { try await setLike($0, second: true) }
        signedIn.get("posts", "likes", "me") { try await myLikes($0, second: false) }
        signedIn.get("posts", "likes-2", "me") { try await myLikes($0, second: true) }
        signedIn.post("posts", ":post", "comments", use: addComment)
        signedIn.put("posts", ":post", "comments", ":comment", use: editComment)
        signedIn.delete("posts", ":post", "comments", ":comment", use: deleteComment)
        signedIn.post("payments", "validation", use: validatePayment)
    }

    struct EmailBody: Content { package let email: String? }
    struct JoinBody: Content { package let email: String?; package let password: String?; package let nick: String? }
    struct LogInBody: Content { package let email: String?; package let password: String? }
    package struct Refreshed: Content { package let accessToken: String }

    func checkEmail(req: Request) async throws -> LSLPErrors.Body {
        let email = try req.decodeJSON(EmailBody.self).email.required("email")
        guard try await req.accounts.emailAvailable(email) else { throw AppError.conflict("email_taken") }
        return LSLPErrors.Body(message: req.t("lslp.email_available"))
    }

    /// 402 for a nickname with a space in it (the app strips them, the contract says so) and for
    /// any other nickname our rules refuse; 409 for an email or nickname taken. Passwords follow
    /// the original server's rule (`LSLPPostRules.passwordMinLength`), not ours.
    package func join(req: Request) async throws -> LSLPJoined {
        let body = try req.decodeJSON(JoinBody.self)
        let email = try body.email.required("email"), password = try body.password.required("password"), nick = try body.nick.required("nick")
        guard !nick.contains(where: \.isWhitespace) else { throw LSLPFailure(402, AppError.invalid("nickname_has_space")) }
        let user: User
        do {
            user = try await req.accounts.signUp(email: email, password: password, nickname: nick,
                                                 minimumPasswordLength: LSLPPostRules.passwordMinLength)
        } catch let error as AppError where error.code.hasPrefix("invalid_nickname") {
            throw LSLPFailure(402, error)
        } catch let error as AppError where error.status == .unprocessableEntity {
            throw LSLPFailure(400, error)
        }
        return LSLPJoined(user_id: ObjectID.of(try user.requireID()), email: user.email, nick: user.nickname)
    }

    package func logIn(req: Request) async throws -> LSLPLoggedIn {
        let body = try req.decodeJSON(LogInBody.self)
        let accounts = req.accounts
        let user = try await accounts.authenticate(email: try body.email.required("email"), password: try body.password.required("password"))
        let tokens = try await accounts.startAPISession(for: user, userAgent: req.headers.first(name: .userAgent), kind: .appWithFixedRefresh)
        return LSLPLoggedIn(user_id: ObjectID.of(try user.requireID()), email: user.email, nick: user.nickname,
                            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken)
    }

    /// The stale access token in `Authorization` (its signature still ours) and the refresh token
    /// in `Refresh`: a new access token; 418 once the refresh token expired (the app logs in again).
    package func refresh(req: Request) async throws -> Refreshed {
        let access = req.lslpAccessToken
        guard let presented = req.headers.first(name: "Refresh"), !presented.isEmpty, !access.isEmpty,
              let claims = try? await req.application.accessTokens.verifyIgnoringExpiry(access)
        else { throw LSLPFailure(401, AppError(.unauthorized, "invalid_token")) }
        do {
            return Refreshed(accessToken: try await req.accounts.accessTokenWithoutRotation(presented, session: claims.sessionID))
        } catch let error as AppError where error.code == "refresh_token_expired" {
            throw LSLPFailure(418, error)
        }
    }

    func myProfile(req: Request) async throws -> LSLPProfile {
        let user = try req.requireUser()
        return try await profile(of: try user.requireID(), nickname: user.nickname, email: user.email, req)
    }

    package func profile(req: Request) async throws -> LSLPProfile {
        let person = try await person(req)
        return try await profile(of: person.id, nickname: person.nickname, email: nil, req)
    }

    /// Follows (409 when already following) or unfollows (twice is once) someone by their 24-hex id.
    package func follow(_ req: Request, on: Bool) async throws -> LSLPFollow {
        let me = try req.requireUser()
        let target = try await person(req)
        let map = req.burgerMap
        let targetID = target.id
        if on, try await map.profile(of: targetID, viewer: try me.requireID()).followedByMe {
            throw AppError.conflict("already_following")
        }
        _ = try await map.setFollow(targetID, to: on, by: try me.requireID())
        return LSLPFollow(nick: me.nickname, opponent_nick: target.nickname, following_status: on)
    }

    /// The person a path's `:user` names; 410 when there is none (the app's "존재하지 않는 유저입니다").
    package func person(_ req: Request) async throws -> AccountStore.JoinedPerson {
        guard let id = req.parameters.get("user"), let person = try await AccountStore.person(objectID: id, on: req.db) else {
            throw LSLPFailure(410, AppError.notFound("user_not_found"))
        }
        return person
    }

    private func profile(of id: UUID, nickname: String, email: String?, _ req: Request) async throws -> LSLPProfile {
        let map = req.burgerMap
        return LSLPProfile(user_id: ObjectID.of(id), email: email, nick: nickname,
                           followers: try await map.follows(of: id, following: false).map { LSLPPerson($0) },
                           following: try await map.follows(of: id, following: true).map { LSLPPerson($0) },
                           posts: try await map.contributions(of: id).map(ObjectID.of))
    }
}
