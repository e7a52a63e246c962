import Vapor

/// Headers that keep browsers from sniffing types, framing our pages, loading foreign scripts,
/// or running anything inside an image opened on its own.
struct SecurityHeadersMiddleware: AsyncMiddleware {
    /// Pages: scripts, styles and images from this origin only, plus what the map needs: its
    /// tiles' host for images and, when Leaflet comes from the pinned CDN, that origin for its
    /// script and stylesheet (each also checked against its integrity hash).
    static func pagePolicy(map: MapLibrary) -> String {
        let images = (["'self'", "data:", "blob:"] + [map.tileOrigin].compactMap { $0 }).joined(separator: " ")
        let code = (["'self'"] + [map.scriptOrigin].compactMap { $0 }).joined(separator: " ")
        return "default-src 'self'; img-src \(images); style-src \(code); script-src \(code); connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    }
    /// Everything else (images, SVG above all, JSON, files): nothing runs, nothing loads.
    static let documentPolicy = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox"

    /// Sent when `PUBLIC_URL` is https: browsers then refuse plain http for a year.
    let strictTransportSecurity: String?

    let pagePolicy: String

    init(settings: Settings, map: MapLibrary) {
        strictTransportSecurity = settings.usesSecureCookies ? "max-age=31536000" : nil
        pagePolicy = Self.pagePolicy(map: map)
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
            response.headers.replaceOrAdd(name: "Content-Security-Policy", value: pagePolicy)
        } else if type?.subType != "css", type?.subType != "javascript" {
            // Stylesheets and scripts run under the policy of the page that loads them; everything
            // else gets the strict one.
            response.headers.replaceOrAdd(name: "Content-Security-Policy", value: Self.documentPolicy)
        }
        return response
    }
}
