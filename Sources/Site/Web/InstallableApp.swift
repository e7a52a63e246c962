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
        routes.get("offline.html", use: offlinePage)
    }

    /// What the worker shows when a page cannot be had (kept in its cache at install): the texts
    /// of every language, for `offline.js` to pick the reader's (the worker cannot know it) and to
    /// tell "you are offline" from "the server is not answering". Nothing personal: it outlives
    /// sessions. Without scripts it says it cannot connect, in Korean.
    func offlinePage(req: Request) throws -> Response {
        let translator = req.application.translator
        var texts: [String: [String: String]] = [:]
        for language in Language.allCases {
            texts[language.rawValue] = Dictionary(uniqueKeysWithValues: Self.offlineTexts.map { key in
                (key, translator.text("offline.\(key)", language, [:]))
            })
        }
        var json: [UInt8] = []
        Markup.appendScriptSafe(try JSONEncoder().encode(texts), to: &json)
        let ko = { (key: String) in Markup.escape(translator.text("offline.\(key)", .ko, [:])) }
        let html = """
            <!doctype html>
            <html lang="ko">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="theme-color" content="\(Self.themeColor)">
            <title>\(ko("page_title"))</title>
            <link rel="stylesheet" href="/css/app.css">
            <link rel="icon" href="/images/icon.svg" type="image/svg+xml">
            <script type="application/json" id="offline-texts">\(String(decoding: json, as: UTF8.self))</script>
            <script type="module" src="/js/shared/offline.js"></script>
            </head>
            <body>
            <main id="main" class="offline-page">
              <section class="card" aria-labelledby="offline-title">
                <p class="intro-emoji" id="offline-emoji" aria-hidden="true">📡</p>
                <h1 id="offline-title">\(ko("page_title"))</h1>
                <p id="offline-body">\(ko("body"))</p>
                <p class="muted" id="offline-status" role="status"></p>
                <a class="button primary" id="offline-retry" href="">\(ko("retry"))</a>
              </section>
            </main>
            </body>
            </html>
            """
        let response = Response(status: .ok, body: .init(string: html))
        response.headers.contentType = .html
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        return response
    }

    /// `offline.<key>` in the translations, for every language.
    package static let offlineTexts = ["page_title", "body", "title_offline", "body_offline", "title_server", "body_server", "retry", "checking"]

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
