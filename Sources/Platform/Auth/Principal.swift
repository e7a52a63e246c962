package import Vapor

/// Who is acting: a signed-in account, or an anonymous device known only by its token's hash.
/// What a feature keeps per person (a cart, likes, requests) is keyed by `key`, so a device's
/// data and an account's never mix. (Not named `Actor`: that is Swift's concurrency protocol.)
package struct Principal: Sendable, Equatable {
    /// `user:<uuid>` or `device:<sha256 of the token>`.
    package let key: String
    package let userID: UUID?

    package static func user(_ id: UUID) -> Principal { Principal(key: "user:\(id.uuidString)", userID: id) }
    package static func device(_ token: String) -> Principal { Principal(key: "device:\(SecureRandom.sha256Hex(token))", userID: nil) }
}

/// The account a request is signed in as, as the platform knows it: set by the accounts feature's
/// authenticators (bearer token, browser session), read by the platform and by every feature.
package struct SignedInAccount: Sendable, Equatable {
    package let id: UUID
    /// The refresh-token family or browser session the request belongs to.
    package let session: UUID

    package init(id: UUID, session: UUID) {
        self.id = id
        self.session = session
    }
}

extension Request {
    private struct SignedInAccountKey: StorageKey { typealias Value = SignedInAccount }

    /// Nil for an anonymous request.
    package var signedInAccount: SignedInAccount? {
        get { storage[SignedInAccountKey.self] }
        set { storage[SignedInAccountKey.self] = newValue }
    }

    /// The signed-in account, else the device in `X-Device-Token`; 401 `code` when neither.
    /// For API routes.
    package func principal(orThrow code: String) throws -> Principal {
        if let account = signedInAccount { return .user(account.id) }
        guard let token = try deviceTokenHeader() else { throw AppError(.unauthorized, code) }
        return .device(token)
    }

    /// The signed-in account, else this browser's device (made on first use). For pages.
    package func browserPrincipal() throws -> Principal {
        if let account = signedInAccount { return .user(account.id) }
        return .device(browserDevice.token)
    }
}
