import Foundation
package import Platform
package import Vapor

/// What makes the site an app a phone can install: the web app manifest (in the reader's
/// language), and the service worker, served from the root so it controls every page, with the
/// app's version written in (a new version's worker replaces the old one and its cache).
package struct InstallableApp: RouteCollection {
    /// The brand's orange (`Layout.themeColor`, also every page's `<meta name="theme-color">`).
    package static let themeColor = Layout.themeColor
    package static let backgroundColor = "#fffaf5"

    package init() {}

    package func boot(routes: any RoutesBuilder) throws {
        routes.get("manifest.webmanifest", use: manifest)
        routes.get("sw.js", use: serviceWorker)
    }

    struct Manifest: Encodable {
        struct Icon: Encodable {
            let src: String
            let sizes: String
            let type = "image/png"
            let purpose: String
        }
        let id = "/"
        let name: String
        let short_name: String
        let description: String
        let lang: String
        let start_url = "/"
        let scope = "/"
        let display = "standalone"
        let theme_color = InstallableApp.themeColor
        let background_color = InstallableApp.backgroundColor
        let icons = [
            Icon(src: "/images/app/icon-192.png", sizes: "192x192", purpose: "any"),
            Icon(src: "/images/app/icon-512.png", sizes: "512x512", purpose: "any"),
            Icon(src: "/images/app/icon-maskable-512.png", sizes: "512x512", purpose: "maskable"),
        ]
    }

    func manifest(req: Request) throws -> Response {
        let manifest = Manifest(name: req.t("app.name"), short_name: req.t("app.short_name"), description: req.t("app.description"),
                                lang: req.language.rawValue)
        let response = Response(status: .ok, body: .init(data: try JSONEncoder().encode(manifest)))
        response.headers.contentType = HTTPMediaType(type: "application", subType: "manifest+json")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        response.headers.replaceOrAdd(name: .vary, value: "Accept-Language, Cookie")
        return response
    }

    func serviceWorker(req: Request) throws -> Response {
        let path = req.application.directory.resourcesDirectory + "service-worker.js"
        guard let source = FileManager.default.contents(atPath: path).map({ String(decoding: $0, as: UTF8.self) }) else {
            throw Abort(.notFound)
        }
        let response = Response(status: .ok, body: .init(string: source.replacingOccurrences(of: "__VERSION__", with: AppVersion.current)))
        response.headers.contentType = HTTPMediaType(type: "text", subType: "javascript", parameters: ["charset": "utf-8"])
        // Browsers check for a new worker on every navigation; it must never come from a cache.
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        return response
    }
}
