import Vapor

/// Who is acting: a signed-in account, or an anonymous device known only by its token's hash.
/// What a feature keeps per person (a cart, likes, requests) is keyed by `key`, so a device's
/// data and an account's never mix. (Not named `Actor`: that is Swift's concurrency protocol.)
struct Principal: Sendable, Equatable {
    /// `user:<uuid>` or `device:<sha256 of the token>`.
    let key: String
    let userID: UUID?

    static func user(_ id: UUID) -> Principal { Principal(key: "user:\(id.uuidString)", userID: id) }
    static func device(_ token: String) -> Principal { Principal(key: "device:\(SecureRandom.sha256Hex(token))", userID: nil) }
}

extension Request {
    /// The signed-in account, else the device in `X-Device-Token`; 401 `code` when neither.
    /// For API routes.
    func principal(orThrow code: String) throws -> Principal {
        if let user = auth.get(User.self) { return .user(try user.requireID()) }
        guard let token = try deviceTokenHeader() else { throw AppError(.unauthorized, code) }
        return .device(token)
    }

    /// The signed-in account, else this browser's device (made on first use). For pages.
    func browserPrincipal() throws -> Principal {
        if let user = auth.get(User.self) { return .user(try user.requireID()) }
        return .device(browserDevice.token)
    }
}
