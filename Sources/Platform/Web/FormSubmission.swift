package import Plot
package import Vapor

extension Request {
    /// Runs a form's action. A rule the input broke (an `AppError` below 500) shows the page again
    /// through `onRuleBroken` — which renders the form with the error and what was typed — with the
    /// error's headers (`Retry-After`); anything else propagates to the error page.
    package func submitForm(
        _ action: () async throws -> Response,
        onRuleBroken page: (AppError) async throws -> Response
    ) async throws -> Response {
        do {
            return try await action()
        } catch let error as AppError where error.status.code < 500 {
            let response = try await page(error)
            response.headers.add(contentsOf: error.headers)
            return response
        }
    }

    /// An error's message in the reader's language.
    package func message(for error: AppError) -> String {
        t(error.messageKey, error.arguments)
    }
}

extension Layout {
    /// An inline alert above a form after a failed submission; nothing when there is no error.
    package static func formError(_ request: Request, _ error: AppError?) -> Node<HTML.BodyContext> {
        formError(error.map(request.message(for:)))
    }
}

/// Pages that need an account. An anonymous visitor is sent to the login page, which brings them
/// back to `returnTo` (or, for a GET, to the page they asked for) once signed in.
package struct SignInRequired: AsyncMiddleware {
    package var returnTo: String?

    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard request.signedInAccount != nil else {
            // A page's query comes along (`/map/write?place=…`); the whole value is one encoded parameter.
            let back = returnTo ?? (request.method == .GET ? request.url.path + (request.url.query.map { "?" + $0 } ?? "") : "/")
            return Layout.redirect(to: Layout.path(SitePath.logIn(), returningTo: back))
        }
        return try await next.respond(to: request)
    }

    package init(returnTo: String? = nil) {
        self.returnTo = returnTo
    }
}

/// The operator's console (`/admin/…`): for administrators' browsers only. Anyone else, signed in or
/// not, gets the site's 404 page, not a hint that it exists.
package struct AdministratorsOnly: AsyncMiddleware {
    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard request.storage[WebViewerKey.self]?.isAdmin == true else { throw AppError.notFound() }
        return try await next.respond(to: request)
    }

    package init() {}
}

/// A whole number typed into a form's `<input type=number>`. A browser sends a box the person
/// emptied as an empty string, which a plain `Int?` refuses (a bare 400 page instead of the form):
/// here an empty or absent field is nil, for the action to name as missing in the form. Anything
/// else that is not a whole number stays a 400, as only a script sends one.
@propertyWrapper
package struct FormNumber: Codable, Sendable, Equatable {
    package var wrappedValue: Int?

    package init(wrappedValue: Int?) {
        self.wrappedValue = wrappedValue
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            wrappedValue = nil
        } else if let number = try? container.decode(Int.self) {
            wrappedValue = number
        } else {
            let text = try container.decode(String.self).trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { wrappedValue = nil; return }
            guard let number = Int(text) else { throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a whole number") }
            wrappedValue = number
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension KeyedDecodingContainer {
    /// A form's number field left out decodes as nil, as for a plain optional.
    package func decode(_ type: FormNumber.Type, forKey key: Key) throws -> FormNumber {
        try decodeIfPresent(type, forKey: key) ?? FormNumber(wrappedValue: nil)
    }
}
