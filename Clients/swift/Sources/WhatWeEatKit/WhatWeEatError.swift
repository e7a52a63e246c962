import Foundation
import HTTPTypes
import OpenAPIRuntime

/// What the server answered instead of what was asked: every 4xx and 5xx carries
/// `{"error": {"code", "message"}}`, the message in the language the client asked for
/// (`Accept-Language`). `code` is stable (switch on it); `message` is for people.
public struct WhatWeEatError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let code: String
    public let message: String
    /// Seconds to wait before trying again, when the server said (429, 503 and some 409s).
    public let retryAfter: Int?

    public init(status: Int, code: String, message: String, retryAfter: Int? = nil) {
        (self.status, self.code, self.message, self.retryAfter) = (status, code, message, retryAfter)
    }

    public var description: String { "\(status) \(code): \(message)" }

    /// The `WhatWeEatError` a call threw, wherever the generated client wrapped it.
    public static func from(_ error: any Error) -> WhatWeEatError? {
        if let own = error as? WhatWeEatError { return own }
        if let client = error as? ClientError { return from(client.underlyingError) }
        return nil
    }
}

/// Turns every error answer into a thrown `WhatWeEatError`, so the generated outputs' success
/// getters (`.ok`, `.created`) are all a caller needs.
struct ErrorMiddleware: ClientMiddleware {
    /// Error bodies are small; anything past this is not ours.
    static let maxErrorBody = 64 * 1024

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        var bytes = Data()
        if let responseBody {
            bytes = (try? await Data(collecting: responseBody, upTo: Self.maxErrorBody)) ?? Data()
        }
        throw Self.error(status: response.status.code, retryAfter: response.headerFields[.retryAfter], body: bytes)
    }

    private struct Envelope: Decodable {
        struct Detail: Decodable { let code: String; let message: String }
        let error: Detail
    }

    static func error(status: Int, retryAfter: String?, body: Data) -> WhatWeEatError {
        let wait = retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if let envelope = try? JSONDecoder().decode(Envelope.self, from: body) {
            return WhatWeEatError(status: status, code: envelope.error.code, message: envelope.error.message, retryAfter: wait)
        }
        // Not our envelope (a proxy's page): the status says what happened.
        return WhatWeEatError(status: status, code: "http_\(status)", message: String(decoding: body.prefix(200), as: UTF8.self), retryAfter: wait)
    }
}

/// `Accept-Language` on every request: the language of error messages, notifications and
/// anything else the server words; and a `User-Agent` when the app set none.
struct LanguageMiddleware: ClientMiddleware {
    let language: String

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if request.headerFields[.acceptLanguage] == nil { request.headerFields[.acceptLanguage] = language }
        // How the account's device list (`GET /api/v1/me/sessions`) names this client, unless the app says.
        if request.headerFields[.userAgent] == nil { request.headerFields[.userAgent] = "WhatWeEatKit/1.0" }
        return try await next(request, body, baseURL)
    }
}

/// `X-Device-Token` on every request: what this installation played, disliked and put in its cart
/// before (or without) signing in. Joined to the account at sign-in.
struct DeviceMiddleware: ClientMiddleware {
    let deviceToken: String

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let name = HTTPField.Name("X-Device-Token"), request.headerFields[name] == nil { request.headerFields[name] = deviceToken }
        return try await next(request, body, baseURL)
    }
}
