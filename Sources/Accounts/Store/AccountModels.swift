public import Fluent
import Foundation
public import Platform

/// An account. Personal data lives here and in its sessions; deleting the row removes both.
public final class User: Model, @unchecked Sendable {
    public static let schema = "users"

    @ID(key: .id) public var id: UUID?
    @Field(key: AccountStore.Column.email.fieldKey) public var email: String
    @Field(key: AccountStore.Column.passwordHash.fieldKey) public var passwordHash: String
    @Field(key: AccountStore.Column.nickname.fieldKey) public var nickname: String
    /// Lower-cased nickname; its unique index makes "Kim" and "kim" the same nickname.
    @Field(key: AccountStore.Column.nicknameKey.fieldKey) public var nicknameKey: String
    @Enum(key: AccountStore.Column.role.fieldKey) public var role: Role
    @OptionalEnum(key: AccountStore.Column.language.fieldKey) public var language: Language?
    /// Key of the profile picture in the file storage.
    @OptionalField(key: AccountStore.Column.profileImageKey.fieldKey) public var profileImageKey: String?
    /// Set while an operator has suspended the account (it cannot sign in), with the reason it is told.
    @OptionalField(key: AccountStore.Column.suspendedAt.fieldKey) public var suspendedAt: Date?
    @OptionalField(key: AccountStore.Column.suspensionReason.fieldKey) public var suspensionReason: String?
    @Timestamp(key: AccountStore.Column.createdAt.fieldKey, on: .create, format: .microseconds) public var createdAt: Date?
    @Timestamp(key: AccountStore.Column.updatedAt.fieldKey, on: .update) public var updatedAt: Date?

    public init() {}

    public convenience init(id: UUID? = nil, email: String, passwordHash: String, nickname: String, role: Role = .user) {
        self.init(id: id, email: email, passwordHash: passwordHash, nickname: nickname, nicknameKey: AccountRules.nicknameKey(nickname), role: role)
    }

    /// With the key already known (a remembered row): working it out is most of building a user.
    init(id: UUID?, email: String, passwordHash: String, nickname: String, nicknameKey: String, role: Role) {
        self.id = id
        self.email = email
        self.passwordHash = passwordHash
        self.nickname = nickname
        self.nicknameKey = nicknameKey
        self.role = role
    }
}

/// One signed-in device or browser: a refresh-token family for API clients, or a cookie
/// session for browsers. Logging out, withdrawing or replaying a used refresh token revokes it,
/// and access tokens naming a revoked session stop working at once.
package final class AuthSession: Model, @unchecked Sendable {
    package static let schema = "auth_sessions"

    /// `api`: our API's refresh-token family (rotated on every use); `web`: a browser's cookie;
    /// `appWithFixedRefresh`: a LookForRealBurger app login, whose refresh token the app keeps for
    /// good, so only these sessions may refresh without rotation.
    package enum Kind: String, Codable { case api, web, appWithFixedRefresh = "app_fixed_refresh" }

    @ID(key: .id) package var id: UUID?
    @Parent(key: "user_id") package var user: User
    @Enum(key: "kind") package var kind: Kind
    /// SHA-256 of the browser's session cookie (web sessions only).
    @OptionalField(key: "web_token_hash") var webTokenHash: String?
    @OptionalField(key: "user_agent") package var userAgent: String?
    @Field(key: "expires_at") package var expiresAt: Date
    @OptionalField(key: "revoked_at") package var revokedAt: Date?
    @Timestamp(key: "created_at", on: .create) package var createdAt: Date?

    package init() {}

}

/// An opaque refresh token, kept only as its SHA-256. Each can be used once.
package final class RefreshToken: Model, @unchecked Sendable {
    package static let schema = "refresh_tokens"

    @ID(key: .id) package var id: UUID?
    @Parent(key: "session_id") package var session: AuthSession
    @Field(key: "token_hash") package var tokenHash: String
    @Field(key: "expires_at") package var expiresAt: Date
    @OptionalField(key: "used_at") package var usedAt: Date?
    /// The token that replaced this one, sealed with the refresh-successor key; set on rotation.
    @OptionalField(key: "sealed_successor") package var sealedSuccessor: String?
    @Timestamp(key: "created_at", on: .create) package var createdAt: Date?

    package init() {}
}

/// A failed login for an email, kept for the throttle window. Shared by every server instance.
final class LoginFailure: Model, @unchecked Sendable {
    static let schema = "login_failures"

    @ID(key: .id) var id: UUID?
    @Field(key: "email") var email: String
    @Field(key: "failed_at") var failedAt: Date

    init() {}
}
