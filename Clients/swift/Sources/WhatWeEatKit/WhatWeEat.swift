import Foundation
import OpenAPIRuntime
import OpenAPIURLSession
import WhatWeEatAPI

/// A WhatWeEat server, typed: `api` is the client generated from `openapi.yaml` (every operation
/// of our own API, `try await app.api.soloGame(...)`), sent with this installation's language and
/// device token and, once signed in, its access token, refreshed as needed. Error answers throw
/// `WhatWeEatError`.
///
/// ```swift
/// let app = WhatWeEat(serverURL: URL(string: "http://127.0.0.1:8080")!)
/// let game = try await app.api.soloGame(body: .json(.init(value1: .init(gameAnswer: [:]), value2: .init())))
/// ```
public final class WhatWeEat: Sendable {
    public let serverURL: URL
    public let api: Client
    public let tokens: TokenStore
    public let language: String
    public let deviceToken: String
    /// How the live rooms (`groupRoom`, `inbox`, `chat`) connect.
    public let liveSockets: any LiveSocketConnector

    /// - Parameters:
    ///   - language: what `Accept-Language` asks for (ko, en or ja; q-values allowed); by default
    ///     the device's preferred languages, which the server matches against the three it speaks.
    ///   - deviceToken: this installation's id for what it does before signing in (the menu game's
    ///     history, a visitor's cart); keep it between launches. A new one is made when nil.
    ///   - tokens: a pair kept from an earlier launch.
    ///   - transport: `URLSessionTransport()` (apps), or `AsyncHTTPClientTransport` from
    ///     `WhatWeEatKitAsyncHTTPClient` (Linux servers).
    ///   - liveSockets: how live rooms connect: `URLSessionLiveSockets()` (Apple platforms), or
    ///     `WebSocketKitLiveSockets` from `WhatWeEatKitAsyncHTTPClient` (Linux).
    ///   - onTokensChange: called with every new pair (sign-in, refresh) and nil on sign-out: keep
    ///     it in the Keychain.
    public init(serverURL: URL, language: String? = nil, deviceToken: String? = nil, tokens: Tokens? = nil,
                transport: any ClientTransport = URLSessionTransport(), liveSockets: any LiveSocketConnector = URLSessionLiveSockets(),
                onTokensChange: @escaping @Sendable (Tokens?) -> Void = { _ in }) {
        let language = language ?? Self.preferredLanguages()
        let deviceToken = deviceToken ?? Self.newDeviceToken()
        let shared: [any ClientMiddleware] = [LanguageMiddleware(language: language), DeviceMiddleware(deviceToken: deviceToken)]
        // Refreshing goes around the token middleware (it has no access token to add).
        let plain = Client(serverURL: serverURL, transport: transport, middlewares: shared + [ErrorMiddleware()])
        let store = TokenStore(tokens: tokens, refresher: { refreshToken in
            try await plain.refresh(body: .json(.init(refreshToken: refreshToken))).ok.body.json
        }, onChange: onTokensChange)
        self.serverURL = serverURL
        self.language = language
        self.deviceToken = deviceToken
        self.liveSockets = liveSockets
        self.tokens = store
        self.api = Client(serverURL: serverURL, transport: transport, middlewares: shared + [AuthMiddleware(store: store), ErrorMiddleware()])
    }

    // MARK: Accounts

    /// Makes an account and signs in as it.
    @discardableResult
    public func signUp(email: String, password: String, nickname: String) async throws -> Components.Schemas.Account {
        let answer = try await api.signUp(body: .json(.init(email: email, password: password, nickname: nickname))).created.body.json
        await tokens.set(Tokens(answer.value1))
        return answer.value2.user
    }

    @discardableResult
    public func logIn(email: String, password: String) async throws -> Components.Schemas.Account {
        let pair = try await api.logIn(body: .json(.init(email: email, password: password))).ok.body.json
        await tokens.set(Tokens(pair))
        return try await me()
    }

    /// Ends this sign-in on the server (its tokens stop working at once) and forgets the pair.
    public func logOut() async throws {
        guard await tokens.tokens != nil else { return }
        do {
            _ = try await api.logOut().noContent
        } catch let error as WhatWeEatError where error.status == 401 {
            // Already over on the server.
        }
        await tokens.set(nil)
    }

    public func me() async throws -> Components.Schemas.Account {
        try await api.readMe().ok.body.json
    }

    // MARK: Lists

    /// Every item of a cursor-paged list, fetched a page at a time as the loop reaches it:
    /// `for try await review in app.pages { cursor in ... }`. `page` gets the cursor of the page
    /// to read (nil for the first) and answers its items and the next cursor (nil at the end).
    public func pages<Item: Sendable>(_ page: @escaping @Sendable (_ cursor: String?) async throws -> (items: [Item], nextCursor: String?))
        -> CursorPages<Item>
    {
        CursorPages(page)
    }

    // MARK: Defaults

    static func preferredLanguages() -> String {
        let preferred = Locale.preferredLanguages.prefix(5)
        return preferred.isEmpty ? "ko" : preferred.joined(separator: ", ")
    }

    static func newDeviceToken() -> String {
        "swift-" + UUID().uuidString.lowercased()
    }
}

/// A cursor-paged list as an `AsyncSequence` of its items (`WhatWeEat.pages`).
public struct CursorPages<Item: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Item
    let page: @Sendable (String?) async throws -> (items: [Item], nextCursor: String?)

    public init(_ page: @escaping @Sendable (String?) async throws -> (items: [Item], nextCursor: String?)) {
        self.page = page
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(page: page) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let page: @Sendable (String?) async throws -> (items: [Item], nextCursor: String?)
        var buffered: [Item] = []
        var cursor: String?
        var started = false

        public mutating func next() async throws -> Item? {
            while buffered.isEmpty {
                if started && cursor == nil { return nil }
                let fetched = try await page(cursor)
                started = true
                cursor = fetched.nextCursor
                buffered = fetched.items.reversed()
            }
            return buffered.popLast()
        }
    }
}
