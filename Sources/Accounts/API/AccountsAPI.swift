package import Fluent
package import Media
import NIOFoundationEssentialsCompat
package import Platform
import Vapor

/// What a client sees of an account.
/// Another person as every service shows them: who wrote a review, who followed you.
package struct PersonSummary: Content, Equatable {
    package let id: UUID
    package let nickname: String
    @NullEncoded package var profileImageURL: String?

    package init(_ user: User, files: any FileStorage) {
        self.init(id: user.id ?? UUID(), nickname: user.nickname, profileImageURL: user.profileImageKey.map(files.urlPath(for:)))
    }

    /// A person another store joined (`AccountStore.joiningPerson`).
    package init(_ person: AccountStore.JoinedPerson, files: any FileStorage) {
        self.init(id: person.id, nickname: person.nickname, profileImageURL: person.profileImageKey.map(files.urlPath(for:)))
    }

    package init(id: UUID, nickname: String, profileImageURL: String?) {
        self.id = id
        self.nickname = nickname
        self.profileImageURL = profileImageURL
    }
}

struct AccountResponse: Content {
    let id: UUID
    let email: String
    let nickname: String
    let role: Role
    @NullEncoded var language: Language?
    @NullEncoded var profileImageURL: String?
    @NullEncoded var createdAt: Date?

    init(_ user: User, files: any FileStorage) {
        self.id = user.id ?? UUID()
        self.email = user.email
        self.nickname = user.nickname
        self.role = user.role
        self.language = user.language
        self.profileImageURL = user.profileImageKey.map(files.urlPath(for:))
        self.createdAt = user.createdAt
    }
}

/// `/api/v1/auth/*`, `/api/v1/me` and `/api/v1/admin/users`.
struct AccountsAPI: RouteCollection {
    struct SignUpBody: Content { package let email: String; package let password: String; package let nickname: String }
    struct SignUpResponse: Content {
        let user: AccountResponse
        let accessToken: String
        let refreshToken: String
        let expiresIn: Int
        let tokenType: String
    }
    struct LoginBody: Content { package let email: String; package let password: String }
    struct RefreshBody: Content { package let refreshToken: String }
    struct EmailQuery: Content { package let email: String }
    struct EmailAvailability: Content { package let email: String; package let available: Bool }
    struct ProfilePatch: Content { package let nickname: String?; package let language: Language? }
    struct WithdrawBody: Content { package let password: String }

    func boot(routes: any RoutesBuilder) throws {
        let auth = routes.grouped("api", "v1", "auth")
        auth.post("signup", use: signUp)
        auth.get("email-available", use: emailAvailable)
        auth.post("login", use: logIn)
        auth.post("refresh", use: refresh)
        auth.post("logout", use: logOut)
        auth.post("password-reset", use: requestPasswordReset)
        auth.post("password-reset", "confirm", use: confirmPasswordReset)
        auth.post("password-reset", "phone", use: requestPhoneReset)
        auth.post("password-reset", "phone", "confirm", use: confirmPhoneReset)
        auth.post("email-change", "confirm", use: confirmEmailChange)
        auth.post("email-change", "undo", use: undoEmailChange)

        let me = routes.grouped("api", "v1", "me")
        me.get(use: readMe)
        me.patch(use: updateMe)
        me.delete(use: withdraw)
        me.put("password", use: changePassword)
        me.post("email", use: requestEmailChange)
        me.get("sessions", use: listSessions)
        me.post("sessions", "sign-out-others", use: signOutOthers)
        me.delete("sessions", ":session", use: endSession)
        me.on(.PUT, "profile-image", body: .collect(maxSize: "6mb"), use: uploadProfileImage)
        me.delete("profile-image", use: deleteProfileImage)

        routes.grouped("api", "v1", "admin").get("users", use: listUsers)
    }

    func signUp(req: Request) async throws -> Response {
        let body = try req.decodeJSON(SignUpBody.self)
        let user = try await req.accounts.signUp(email: body.email, password: body.password, nickname: body.nickname)
        let tokens = try await req.accounts.startAPISession(for: user, userAgent: req.headers.first(name: .userAgent))
        await req.handDeviceOver(to: user.id, from: .header)
        let response = SignUpResponse(user: AccountResponse(user, files: req.application.files), accessToken: tokens.accessToken,
                                      refreshToken: tokens.refreshToken, expiresIn: tokens.expiresIn, tokenType: tokens.tokenType)
        return try await response.encodeResponse(status: .created, for: req)
    }

    func emailAvailable(req: Request) async throws -> EmailAvailability {
        let query = try req.query.decode(EmailQuery.self)
        let available = try await req.accounts.emailAvailable(query.email)
        return EmailAvailability(email: AccountRules.normalizeEmail(query.email), available: available)
    }

    func logIn(req: Request) async throws -> TokenPair {
        let body = try req.decodeJSON(LoginBody.self)
        let user = try await req.accounts.authenticate(email: body.email, password: body.password)
        let tokens = try await req.accounts.startAPISession(for: user, userAgent: req.headers.first(name: .userAgent))
        await req.handDeviceOver(to: user.id, from: .header)
        return tokens
    }

    func refresh(req: Request) async throws -> TokenPair {
        let body = try req.decodeJSON(RefreshBody.self)
        return try await req.accounts.refresh(body.refreshToken)
    }

    /// Ends the caller's session: its refresh tokens and access tokens stop working.
    func logOut(req: Request) async throws -> HTTPStatus {
        _ = try req.requireUser()
        if let session = req.signedInAccount?.session {
            try await req.accounts.revokeSession(session)
        }
        return .noContent
    }

    struct PasswordResetBody: Content { var email: String? }
    /// The same answer for every well-formed address, whether or not it has an account.
    struct PasswordResetAccepted: Content { let status: String; let message: String }
    struct PasswordResetConfirmBody: Content { var token: String?; var password: String? }

    /// `POST /api/v1/auth/password-reset`: 202 and a link by mail if the address has an account
    /// (the same bytes either way).
    func requestPasswordReset(req: Request) async throws -> Response {
        let body = try req.decodeJSON(PasswordResetBody.self)
        try await req.accounts.requestPasswordReset(email: try body.email.required("email"), language: req.language)
        return try await PasswordResetAccepted(status: "accepted", message: req.t("reset.sent_explain"))
            .encodeResponse(status: .accepted, for: req)
    }

    /// `POST /api/v1/auth/password-reset/confirm`: the new password; every session of the account
    /// ends, and this device is signed in (the sign-up's answer, 200).
    func confirmPasswordReset(req: Request) async throws -> SignUpResponse {
        let body = try req.decodeJSON(PasswordResetConfirmBody.self)
        let user = try await req.accounts.confirmPasswordReset(token: try body.token.required("token"), password: try body.password.required("password"))
        return try await signedIn(req, user)
    }

    /// A new API session for `user` on this device (its anonymous device handed over, as at
    /// sign-in), answered as a sign-up is.
    private func signedIn(_ req: Request, _ user: User) async throws -> SignUpResponse {
        let tokens = try await req.accounts.startAPISession(for: user, userAgent: req.headers.first(name: .userAgent))
        await req.handDeviceOver(to: user.id, from: .header)
        return SignUpResponse(user: AccountResponse(user, files: req.application.files), accessToken: tokens.accessToken,
                              refreshToken: tokens.refreshToken, expiresIn: tokens.expiresIn, tokenType: tokens.tokenType)
    }

    struct PhoneResetBody: Content { var phone: String? }
    struct PhoneResetConfirmBody: Content { var phone: String?; var code: String?; var password: String? }

    /// `POST /api/v1/auth/password-reset/phone`: 202 and a code by text message if the number is
    /// an account's verified phone (the same answer either way).
    func requestPhoneReset(req: Request) async throws -> Response {
        let body = try req.decodeJSON(PhoneResetBody.self)
        try await req.accounts.requestPhoneReset(phone: try body.phone.required("phone"), language: req.language)
        return try await PasswordResetAccepted(status: "accepted", message: req.t("reset.code_sent_explain"))
            .encodeResponse(status: .accepted, for: req)
    }

    /// `POST /api/v1/auth/password-reset/phone/confirm`: the code and the new password; every
    /// session of the account ends, and this device is signed in (the sign-up's answer, 200).
    func confirmPhoneReset(req: Request) async throws -> SignUpResponse {
        let body = try req.decodeJSON(PhoneResetConfirmBody.self)
        let user = try await req.accounts.confirmPhoneReset(phone: try body.phone.required("phone"), code: try body.code.required("code"),
                                                            password: try body.password.required("password"))
        return try await signedIn(req, user)
    }

    struct EmailChangeBody: Content { var email: String?; var password: String? }
    struct EmailChangeSent: Content { let status: String; let email: String }
    struct LinkTokenBody: Content { var token: String? }

    /// `POST /api/v1/me/email`: 202; the change happens when the new address's link is followed.
    func requestEmailChange(req: Request) async throws -> Response {
        let user = try req.requireUser()
        let body = try req.decodeJSON(EmailChangeBody.self)
        let email = try await req.accounts.requestEmailChange(user, to: try body.email.required("email"), password: try body.password.required("password"))
        return try await EmailChangeSent(status: "sent", email: email).encodeResponse(status: .accepted, for: req)
    }

    /// `POST /api/v1/auth/email-change/confirm`: the new address's link; the account as it now is.
    func confirmEmailChange(req: Request) async throws -> AccountResponse {
        let body = try req.decodeJSON(LinkTokenBody.self)
        return AccountResponse(try await req.accounts.confirmEmailChange(token: try body.token.required("token")), files: req.application.files)
    }

    /// `POST /api/v1/auth/email-change/undo`: the old address's link; the old address is back and every session ended.
    func undoEmailChange(req: Request) async throws -> AccountResponse {
        let body = try req.decodeJSON(LinkTokenBody.self)
        return AccountResponse(try await req.accounts.undoEmailChange(token: try body.token.required("token")), files: req.application.files)
    }

    /// A device the account is signed in on (`GET /api/v1/me/sessions`).
    struct SessionResponse: Content {
        let id: UUID
        /// `web` (a browser), `api` (an app of our API), `app_fixed_refresh` (the LookForRealBurger app).
        let kind: String
        @NullEncoded var device: String?
        @NullEncoded var createdAt: Date?
        @NullEncoded var lastSeenAt: Date?
        /// A coarse place ("서울") when one is known; none is kept for sessions today, so always null.
        @NullEncoded var place: String?
        let current: Bool
    }
    struct SessionList: Content { let items: [SessionResponse] }
    struct SignedOutOthers: Content { let ended: Int }

    func listSessions(req: Request) async throws -> SessionList {
        let user = try req.requireUser()
        let devices = try await req.accounts.signedInDevices(of: user, current: req.signedInAccount?.session)
        return SessionList(items: devices.map {
            SessionResponse(id: $0.id, kind: $0.kind.rawValue, device: $0.device, createdAt: $0.createdAt, lastSeenAt: $0.lastSeenAt,
                            place: nil, current: $0.current)
        })
    }

    /// `DELETE /api/v1/me/sessions/{id}`: that device is signed out (this one too, if named). 204.
    func endSession(req: Request) async throws -> HTTPStatus {
        let user = try req.requireUser()
        try await req.accounts.endSession(try req.parameters.routeValue("session", as: UUID.self), of: user)
        return .noContent
    }

    /// `POST /api/v1/me/sessions/sign-out-others`: every device but this one is signed out.
    func signOutOthers(req: Request) async throws -> SignedOutOthers {
        let user = try req.requireUser()
        return SignedOutOthers(ended: try await req.accounts.signOutOthers(user, keeping: req.signedInAccount?.session))
    }

    struct PasswordChangeBody: Content {
        var currentPassword: String?
        var newPassword: String?
    }

    /// `PUT /api/v1/me/password`: the new password after the current one; every other session of
    /// the account ends (tokens and live sockets), this one stays. 204.
    func changePassword(req: Request) async throws -> HTTPStatus {
        let user = try req.requireUser()
        let body = try req.decodeJSON(PasswordChangeBody.self)
        try await req.accounts.changePassword(user, current: try body.currentPassword.required("currentPassword"),
                                              new: try body.newPassword.required("newPassword"), keeping: req.signedInAccount?.session)
        return .noContent
    }

    func readMe(req: Request) async throws -> AccountResponse {
        AccountResponse(try req.requireUser(), files: req.application.files)
    }

    func updateMe(req: Request) async throws -> AccountResponse {
        let user = try req.requireUser()
        let patch = try req.decodeJSON(ProfilePatch.self)
        let updated = try await req.accounts.updateProfile(user, nickname: patch.nickname, language: patch.language)
        return AccountResponse(updated, files: req.application.files)
    }

    func withdraw(req: Request) async throws -> HTTPStatus {
        let user = try req.requireUser()
        let body = try req.decodeJSON(WithdrawBody.self)
        try await req.accounts.withdraw(user, password: body.password)
        return .noContent
    }

    /// The image is the raw request body; its type is read from its bytes.
    func uploadProfileImage(req: Request) async throws -> AccountResponse {
        let user = try req.requireUser()
        let data = req.body.data.map { Data(buffer: $0) } ?? Data()
        let updated = try await req.accounts.setProfileImage(user, data: data, from: req.clientNetwork.key)
        return AccountResponse(updated, files: req.application.files)
    }

    func deleteProfileImage(req: Request) async throws -> AccountResponse {
        let updated = try await req.accounts.removeProfileImage(try req.requireUser())
        return AccountResponse(updated, files: req.application.files)
    }

    func listUsers(req: Request) async throws -> CursorPage<AccountResponse> {
        _ = try req.requireAdmin()
        let page = try CursorPageRequest(from: req)
        let (users, next) = try await AccountStore(database: req.db, application: req.application).users(page)
        return CursorPage(items: users.map { AccountResponse($0, files: req.application.files) }, nextCursor: next)
    }
}
