import Foundation
import HTTPTypes
import OpenAPIRuntime
import WhatWeEatAPI

/// A signed-in session's token pair, as an app keeps it between launches (in the Keychain).
public struct Tokens: Codable, Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    /// When the access token stops working.
    public var accessExpiresAt: Date

    public init(accessToken: String, refreshToken: String, accessExpiresAt: Date) {
        (self.accessToken, self.refreshToken, self.accessExpiresAt) = (accessToken, refreshToken, accessExpiresAt)
    }

    init(_ pair: Components.Schemas.TokenPair, now: Date = Date()) {
        self.init(accessToken: pair.accessToken, refreshToken: pair.refreshToken,
                  accessExpiresAt: now.addingTimeInterval(TimeInterval(pair.expiresIn)))
    }
}

/// Keeps the pair and refreshes it: ahead of expiry, and once when the server says
/// `token_expired`. Refresh tokens rotate on every use, so callers who need a refresh at the same
/// moment share one; a refresh whose answer was lost is retried with the same token, which the
/// server accepts within 10 seconds (it answers with the same successor).
public actor TokenStore {
    public private(set) var tokens: Tokens?
    private var refreshing: Task<Tokens, any Error>?
    private let refresher: @Sendable (String) async throws -> Components.Schemas.TokenPair
    private let onChange: @Sendable (Tokens?) -> Void
    /// Refreshed this long before the access token expires.
    public let margin: TimeInterval = 30

    init(tokens: Tokens?, refresher: @escaping @Sendable (String) async throws -> Components.Schemas.TokenPair,
         onChange: @escaping @Sendable (Tokens?) -> Void) {
        self.tokens = tokens
        self.refresher = refresher
        self.onChange = onChange
    }

    /// Signed in with a new pair (sign-up, log-in), or signed out (nil).
    public func set(_ tokens: Tokens?) {
        refreshing = nil
        self.tokens = tokens
        onChange(tokens)
    }

    /// An access token good for at least `margin` more seconds; nil when signed out.
    func validAccessToken(now: Date = Date()) async throws -> String? {
        guard let tokens else { return nil }
        if tokens.accessExpiresAt.timeIntervalSince(now) > margin { return tokens.accessToken }
        return try await refresh(replacing: tokens.accessToken).accessToken
    }

    /// A new pair, unless another caller already replaced the access token `stale` (then theirs).
    func refresh(replacing stale: String) async throws -> Tokens {
        if let tokens, tokens.accessToken != stale { return tokens }
        if let refreshing { return try await refreshing.value }
        guard let refreshToken = tokens?.refreshToken else {
            throw WhatWeEatError(status: 401, code: "unauthorized", message: "Not signed in.")
        }
        let task = Task { [refresher] in
            do {
                return Tokens(try await refresher(refreshToken))
            } catch let error where Self.isTransport(error) {
                // The answer may have been lost after the server rotated: the same token again
                // gets the same successor within the server's 10-second window.
                return Tokens(try await refresher(refreshToken))
            }
        }
        refreshing = task
        do {
            let fresh = try await task.value
            if refreshing == task {
                refreshing = nil
                tokens = fresh
                onChange(fresh)
            }
            return fresh
        } catch {
            if refreshing == task { refreshing = nil }
            if let refused = WhatWeEatError.from(error), refused.status == 401 {
                // Reused or revoked: this sign-in is over.
                tokens = nil
                onChange(nil)
            }
            throw error
        }
    }

    private static func isTransport(_ error: any Error) -> Bool { WhatWeEatError.from(error) == nil }
}

/// `Authorization: Bearer …` on every call but signing up and in; a `token_expired` answer is
/// refreshed and the call sent once more (when its body can be sent twice, which JSON bodies can).
struct AuthMiddleware: ClientMiddleware {
    let store: TokenStore
    static let anonymous: Set<String> = ["signUp", "logIn", "refresh", "emailAvailable"]

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        guard !Self.anonymous.contains(operationID), let token = try await store.validAccessToken() else {
            return try await next(request, body, baseURL)
        }
        var signed = request
        signed.headerFields[.authorization] = "Bearer \(token)"
        do {
            return try await next(signed, body, baseURL)
        } catch {
            // The runtime hands a later middleware's error back wrapped in a `ClientError`.
            guard let refused = WhatWeEatError.from(error), refused.status == 401, refused.code == "token_expired",
                  body == nil || body?.iterationBehavior == .multiple else { throw error }
            let fresh = try await store.refresh(replacing: token)
            signed.headerFields[.authorization] = "Bearer \(fresh.accessToken)"
            return try await next(signed, body, baseURL)
        }
    }
}
