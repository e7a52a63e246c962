import Accounts
import Mates
import Notifications
import Platform
import SocketIO
import Vapor

/// The `idtoken` header of every `/v1` call: a Firebase ID token, verified (`FirebaseIDTokenVerifier`)
/// against the projects of `FIREBASE_PROJECT_IDS`. Without that setting every call answers 401:
/// an unverified token is never trusted.
struct SesacAppAuthentication: AsyncMiddleware {
    static let header = "idtoken"

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard let verifier = request.application.firebaseTokens,
              let token = request.headers.first(name: Self.header), !token.isEmpty, token.utf8.count <= 8 * 1024
        else { throw AppError(.unauthorized, "id_token_invalid") }
        do {
            request.storage[SesacIdentityKey.self] = try await verifier.verify(token)
        } catch .certificatesUnavailable {
            throw AppError(.serviceUnavailable, "id_token_unverifiable", headers: ["Retry-After": "30"])
        } catch {
            request.logger.debug("an ID token was refused: \(error)")
            throw AppError(.unauthorized, "id_token_invalid")
        }
        let response = try await next.respond(to: request)
        // The answer to a signed-up app user's call carries the chat socket's binding cookie. The
        // service noted, before anything the call announced, that the uid holds one
        // (`SesacAppService.noteSocketCookieHanded`; the sign-up's row is made holding it): from
        // then on its socket binds by cookie or token only, never by network.
        if let uid = request.socketBindingUID {
            response.cookies[SesacSocketBinding.cookieName] = SesacSocketBinding.cookie(uid: uid, request)
        }
        return response
    }
}

private struct SesacIdentityKey: StorageKey { typealias Value = FirebaseIdentity }

extension Request {
    /// The verified token of a `/v1` call.
    func sesacIdentity() throws -> FirebaseIdentity {
        guard let identity = storage[SesacIdentityKey.self] else { throw AppError(.unauthorized, "id_token_invalid") }
        return identity
    }

    /// The app user the token names, or 406 (signed in with Firebase, not signed up here). Notes
    /// the network it calls from, and has the answer carry the binding cookie (both of which the
    /// chat socket checks).
    /// The account of the app user the token names, from memory (the search and the poll need no
    /// more), or 406; notes the network and the binding cookie as `sesacAppUser` does.
    func sesacAppAccount() async throws -> UUID {
        let identity = try sesacIdentity()
        guard let account = try await sesacApp.appAccountNotingSighting(uid: identity.uid, address: clientAddress) else {
            throw AppError(.notAcceptable, "app_user_unknown")
        }
        socketBindingUID = identity.uid
        return account
    }

    func sesacAppUser() async throws -> MatesAppUser {
        let identity = try sesacIdentity()
        guard let appUser = try await sesacApp.appUser(identity.uid) else { throw AppError(.notAcceptable, "app_user_unknown") }
        try await sesacApp.noteAppSighting(appUser, address: clientAddress)
        socketBindingUID = identity.uid
        return appUser
    }
}

/// The apps' answers: a short body for each status (an empty 200 sends one app down its error
/// path), business outcomes as 2xx codes, and 501 for what the native API calls 400 and 422.
enum Sesac {
    static func ok() -> Response {
        Response(status: .ok, headers: ["Content-Type": "text/plain; charset=utf-8"], body: .init(string: "OK"))
    }

    /// A business outcome: the status, with the outcome's message as text in the reader's language.
    /// A business status with the reason as text, and the error's headers (`Retry-After` of a penalty).
    static func status(_ code: Int, _ error: AppError, _ req: Request) -> Response {
        var headers: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
        headers.add(contentsOf: error.headers)
        return Response(status: HTTPResponseStatus(statusCode: code), headers: headers, body: .init(string: req.t(error.messageKey, error.arguments)))
    }

    static func status(_ code: Int, _ key: String, _ req: Request) -> Response {
        status(code, AppError(.ok, key), req)
    }

    /// Runs a handler; a native error whose code is in `codes` becomes that business status, a 400
    /// or 422 becomes 501 with the JSON error body, anything else goes on as it is.
    static func outcome(_ req: Request, _ codes: [String: Int], _ work: () async throws -> Response) async throws -> Response {
        do {
            return try await work()
        } catch let error as AppError {
            if let code = codes[error.code] { return status(code, error, req) }
            guard error.status == .badRequest || error.status == .unprocessableEntity else { throw error }
            let response = Response(status: .notImplemented)
            try response.content.encode(ErrorBody(error: .init(code: error.code, message: req.t(error.messageKey, error.arguments))))
            return response
        }
    }

    static func missing(_ field: String) -> AppError { .badRequest("missing_field", ["field": field]) }
    static func badField(_ field: String) -> AppError { .badRequest("invalid_field", ["field": field]) }

    static func coordinate(_ form: LenientForm) throws -> Coordinate {
        guard form.value("lat") != nil else { throw missing("lat") }
        guard form.value("long") != nil else { throw missing("long") }
        guard let lat = form.number("lat"), let lon = form.number("long") else { throw badField(form.number("lat") == nil ? "lat" : "long") }
        do { return try Coordinate(lat: lat, lon: lon) } catch { throw MatesService.appError(error) }
    }

    /// `gender`: 0 (female) or 1 (male); nil when absent and not required.
    static func gender(_ form: LenientForm, required: Bool) throws -> MatesGender? {
        guard form.value("gender") != nil else {
            if required { throw missing("gender") }
            return nil
        }
        guard let gender = SesacWire.gender(form.integer("gender")) else { throw AppError.invalid("invalid_app_gender") }
        return gender
    }

    /// The free-text "study I want" of My Info: one line, at most 50 characters.
    static func study(_ raw: String) throws -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count <= 50, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { throw badField("study") }
        return text
    }

    /// The account behind an `otheruid`; `unknown` names the outcome when there is none.
    static func other(_ uid: String?, _ req: Request, unknown: String) async throws -> UUID {
        guard let uid, !uid.isEmpty else { throw missing("otheruid") }
        guard let account = try await req.sesacApp.account(forAppUID: uid) else { throw AppError.conflict(unknown) }
        return account
    }
}
