import Accounts
import BurgerMap
import Notifications
import Platform
import Vapor

/// `SesacKey` on every call of the LookForRealBurger app (images included): one of
/// `LSLP_API_KEYS`, else 420. Without that setting every call is 420: the routes are off.
struct LSLPKeyCheck: AsyncMiddleware {
    static let header = "SesacKey"

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let presented = request.headers.first(name: Self.header) ?? ""
        let keys = request.application.settings.lookForRealBurgerApp.apiKeys
        guard !presented.isEmpty, keys.contains(where: { SecureRandom.constantTimeEquals($0, presented) }) else {
            throw LSLPFailure(420, AppError(.unauthorized, "lslp_key_invalid"))
        }
        return try await next.respond(to: request)
    }
}

/// A contract status (420, 419, 418, 402, 410…) with our error's message.
struct LSLPFailure: Error {
    let status: Int
    let error: AppError

    init(_ status: Int, _ error: AppError) {
        self.status = status
        self.error = error
    }
}

/// The LSLP apps' error body, `{"message": "…"}` in the reader's language, on every error of these
/// routes; the status is the contract's (`LSLPFailure`) or our own.
struct LSLPErrors: AsyncMiddleware {
    package struct Body: Content { package let message: String }

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch let failure as LSLPFailure {
            return try Self.response(failure.status, failure.error, request)
        } catch {
            // Bodies that do not parse and our own rules, in the app's shape; a server error goes on
            // to the error middleware, which logs it.
            let appError = AppErrorMiddleware.appError(for: error)
            // A deliberate refusal of ours (503 payments unavailable) is answered here too.
            guard appError.status.code < 500 || (error is AppError && appError.status != .internalServerError) else { throw error }
            return try Self.response(Self.status(of: appError), appError, request)
        }
    }

    /// The app's code for one of our errors: 400 for any value refused (our 422), 410 for a post,
    /// comment or person that is not there (our 404 with its `…_not_found` code; an unknown path
    /// stays 404).
    static func status(of error: AppError) -> Int {
        switch error.status {
        case .unprocessableEntity: return 400
        case .notFound where error.code.hasSuffix("_not_found"): return 410
        default: return Int(error.status.code)
        }
    }

    static func response(_ status: Int, _ error: AppError, _ request: Request) throws -> Response {
        let response = Response(status: HTTPResponseStatus(statusCode: status))
        try response.content.encode(Body(message: request.t(error.messageKey, error.arguments)))
        response.headers.add(contentsOf: error.headers)
        return response
    }
}

/// The raw access token in `Authorization` (no `Bearer`): 419 when it expired (the app then
/// refreshes and replays), 401 when it is not ours or its session ended.
struct LSLPAuthentication: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let token = request.lslpAccessToken
        guard !token.isEmpty else { throw LSLPFailure(401, AppError(.unauthorized, "unauthorized")) }
        do {
            try await request.signIn(accessToken: token)
        } catch let error as AppError where error.code == "token_expired" {
            throw LSLPFailure(419, error)
        } catch let error as AppError {
            throw LSLPFailure(401, error)
        }
        return try await next.respond(to: request)
    }
}

extension Request {
    /// The app's `Authorization`: the raw access token (a `Bearer ` prefix, if some client adds one, is dropped).
    var lslpAccessToken: String {
        let raw = headers.first(name: .authorization) ?? ""
        return raw.hasPrefix("Bearer ") ? String(raw.dropFirst(7)) : raw
    }
}
