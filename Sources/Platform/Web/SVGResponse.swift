package import Vapor

extension Response {
    /// An SVG image made by the server (menu cards, dish artwork, QR codes). Text inside it must
    /// have gone through `Markup.escape`; `SecurityHeadersMiddleware` adds a policy under which
    /// nothing in it can run even when it is opened on its own.
    package static func svg(_ text: String, cacheControl: String) -> Response {
        let response = Response(status: .ok, body: .init(string: text))
        response.headers.contentType = HTTPMediaType(type: "image", subType: "svg+xml")
        response.headers.replaceOrAdd(name: .cacheControl, value: cacheControl)
        return response
    }
}
