import Vapor

/// Headers that keep browsers from sniffing types, framing our pages, loading foreign scripts,
/// or running anything inside an image opened on its own.
struct SecurityHeadersMiddleware: AsyncMiddleware {
    /// Pages: scripts, styles and images from this origin only.
    static let pagePolicy = "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    /// Everything else (images, SVG above all, JSON, files): nothing runs, nothing loads.
    static let documentPolicy = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox"

    /// Sent when `PUBLIC_URL` is https: browsers then refuse plain http for a year.
    let strictTransportSecurity: String?

    init(settings: Settings) {
        strictTransportSecurity = settings.usesSecureCookies ? "max-age=31536000" : nil
    }

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await next.respond(to: request)
        response.headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "same-origin")
        if let strictTransportSecurity {
            response.headers.replaceOrAdd(name: "Strict-Transport-Security", value: strictTransportSecurity)
        }
        let type = response.headers.contentType
        if type?.subType == "html" {
            response.headers.replaceOrAdd(name: "X-Frame-Options", value: "DENY")
            response.headers.replaceOrAdd(name: "Content-Security-Policy", value: Self.pagePolicy)
        } else if type?.subType != "css", type?.subType != "javascript" {
            // Stylesheets and scripts run under the policy of the page that loads them; everything
            // else gets the strict one.
            response.headers.replaceOrAdd(name: "Content-Security-Policy", value: Self.documentPolicy)
        }
        return response
    }
}
