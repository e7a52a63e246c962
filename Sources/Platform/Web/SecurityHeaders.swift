package import Vapor

/// Headers that keep browsers from sniffing types, framing our pages, loading foreign scripts,
/// or running anything inside an image opened on its own.
package struct SecurityHeadersMiddleware: AsyncMiddleware {
    /// Pages: scripts, styles and images from this origin only. A page with a map (`Layout.page`
    /// with the map library's files, which marks the request) also allows its tiles' host for
    /// images and, when Leaflet comes from the pinned CDN, exactly that script's and stylesheet's
    /// addresses (each also checked against its integrity hash) — never the CDN's whole origin,
    /// which serves every package anyone published.
    /// A page with the postcode search also allows its script's origin and its search frame's.
    static func pagePolicy(map: MapLibrary?, postcode: PostcodeSettings? = nil) -> String {
        let images = (["'self'", "data:", "blob:"] + [map?.tileOrigin].compactMap { $0 }).joined(separator: " ")
        let styles = (["'self'"] + (map?.externalStylesheets ?? [])).joined(separator: " ")
        let scripts = (["'self'"] + (map?.externalScripts ?? []) + [postcode?.scriptOrigin].compactMap { $0 }).joined(separator: " ")
        let frames = [postcode?.frameOrigin].compactMap { $0 }
        return "default-src 'self'; img-src \(images); style-src \(styles); script-src \(scripts); connect-src 'self'; "
            + (frames.isEmpty ? "" : "frame-src \(frames.joined(separator: " ")); ")
            + "frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    }

    /// What a request's page asked its policy to allow (`PageExtras.policy`).
    struct PagePolicyKey: StorageKey { package typealias Value = PagePolicy }
    /// Everything else (images, SVG above all, JSON, files): nothing runs, nothing loads.
    package static let documentPolicy = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox"

    /// Sent when `PUBLIC_URL` is https: browsers then refuse plain http for a year.
    let strictTransportSecurity: String?

    let pagePolicy: String
    /// The policies of pages that asked for more, made once.
    let policies: [PagePolicy: String]

    package init(settings: Settings, map: MapLibrary) {
        strictTransportSecurity = settings.usesSecureCookies ? "max-age=31536000" : nil
        pagePolicy = Self.pagePolicy(map: nil)
        let postcode = settings.postcode
        policies = [
            .map: Self.pagePolicy(map: map), .postcode: Self.pagePolicy(map: nil, postcode: postcode),
            [.map, .postcode]: Self.pagePolicy(map: map, postcode: postcode),
        ]
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
            let policy = request.storage[PagePolicyKey.self].flatMap { policies[$0] } ?? pagePolicy
            response.headers.replaceOrAdd(name: "Content-Security-Policy", value: policy)
        } else if !type.hasSuffix("/css"), !type.hasSuffix("/javascript") {
            // Stylesheets and scripts run under the policy of the page that loads them; everything
            // else gets the strict one.
            response.headers.replaceOrAdd(name: "Content-Security-Policy", value: Self.documentPolicy)
        }
        return response
    }
}

/// What a page's policy allows beyond this site (`PageExtras.policy`).
package struct PagePolicy: OptionSet, Hashable, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// The map library's files and tiles.
    package static let map = PagePolicy(rawValue: 1)
    /// The postcode search's script and frame.
    package static let postcode = PagePolicy(rawValue: 2)
}
