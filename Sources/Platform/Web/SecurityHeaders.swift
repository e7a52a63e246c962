package import Vapor

/// Headers that keep browsers from sniffing types, framing our pages, loading foreign scripts,
/// or running anything inside an image opened on its own.
package struct SecurityHeadersMiddleware: AsyncMiddleware {
    /// Pages: scripts, styles and images from this origin only. A page with a map (`Layout.page`
    /// with the map library's files, which marks the request) also allows its tiles' host for
    /// images and, when Leaflet comes from the pinned CDN, exactly that script's and stylesheet's
    /// addresses (each also checked against its integrity hash) — never the CDN's whole origin,
    /// which serves every package anyone published.
    static func pagePolicy(map: MapLibrary?) -> String {
        let images = (["'self'", "data:", "blob:"] + [map?.tileOrigin].compactMap { $0 }).joined(separator: " ")
        let styles = (["'self'"] + (map?.externalStylesheets ?? [])).joined(separator: " ")
        let scripts = (["'self'"] + (map?.externalScripts ?? [])).joined(separator: " ")
        return "default-src 'self'; img-src \(images); style-src \(styles); script-src \(scripts); connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    }

    /// Marks a request whose page loads the map library.
    struct MapPageKey: StorageKey { package typealias Value = Bool }
    /// Everything else (images, SVG above all, JSON, files): nothing runs, nothing loads.
    package static let documentPolicy = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox"

    /// Sent when `PUBLIC_URL` is https: browsers then refuse plain http for a year.
    let strictTransportSecurity: String?

    let pagePolicy: String
    let mapPagePolicy: String

    package init(settings: Settings, map: MapLibrary) {
        strictTransportSecurity = settings.usesSecureCookies ? "max-age=31536000" : nil
        pagePolicy = Self.pagePolicy(map: nil)
        mapPagePolicy = Self.pagePolicy(map: map)
    }

    /// `text/html; charset=utf-8` → `text/html`, lower-cased; empty without a type.
    package static func mediaType(_ header: String?) -> Substring {
        guard let header else { return "" }
        // Bytes: every answer passes here, and Character-wise trimming was 2 % of a light one.
        let bytes = header.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = bytes.startIndex, last = end
        while start < last, isSpace(bytes[start]) { start = bytes.index(after: start) }
        while last > start, isSpace(bytes[bytes.index(before: last)]) { last = bytes.index(before: last) }
        let type = header[start..<last]
        return bytes[start..<last].contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) ? Substring(type.lowercased()) : type
    }

    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await next.respond(to: request)
        response.headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        // A page may ask for less (`no-referrer` where its address holds a secret).
        if !response.headers.contains(name: "Referrer-Policy") {
            response.headers.add(name: "Referrer-Policy", value: "same-origin")
        }
        if let strictTransportSecurity {
            response.headers.replaceOrAdd(name: "Strict-Transport-Security", value: strictTransportSecurity)
        }
        // The media type read as text: parsing the header into an `HTTPMediaType` was 3 % of a
        // light API answer.
        let type = Self.mediaType(response.headers.first(name: .contentType))
        if type.hasSuffix("/html") {
            response.headers.replaceOrAdd(name: "X-Frame-Options", value: "DENY")
            let isMapPage = request.storage[MapPageKey.self] == true
            response.headers.replaceOrAdd(name: "Content-Security-Policy", value: isMapPage ? mapPagePolicy : pagePolicy)
        } else if !type.hasSuffix("/css"), !type.hasSuffix("/javascript") {
            // Stylesheets and scripts run under the policy of the page that loads them; everything
            // else gets the strict one.
            response.headers.replaceOrAdd(name: "Content-Security-Policy", value: Self.documentPolicy)
        }
        return response
    }
}
