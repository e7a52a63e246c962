import Foundation
import NIOFoundationEssentialsCompat
import Platform
import Site
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Issue 40, item 3: the site installs as an app. The manifest names it in the reader's language
/// with icons a home screen takes (and the files are real PNGs of those sizes), every page links
/// it, the service worker comes from the root, never from a cache, with the version written in,
/// and the offline page and the favicon are there.
final class InstallableAppTests: XCTestCase {
    /// The width and height a PNG's header says.
    private func pngSize(_ data: Data) -> (Int, Int)? {
        rasterImageSize(data).flatMap { $0.format == "png" ? ($0.width, $0.height) : nil }
    }

    func testTheManifestNamesTheAppInTheReadersLanguageWithRealIcons() async throws {
        try await withTestApp { app in
            let korean = try await app.send(.GET, "/manifest.webmanifest", headers: ["Accept-Language": "ko"])
            XCTAssertEqual(korean.status, .ok)
            XCTAssertEqual(korean.headers.first(name: .contentType), "application/manifest+json")
            let manifest = try korean.object()
            XCTAssertEqual(manifest["name"] as? String, "우리뭐먹지")
            XCTAssertEqual(manifest["display"] as? String, "standalone")
            XCTAssertEqual(manifest["start_url"] as? String, "/")
            XCTAssertEqual(manifest["theme_color"] as? String, InstallableApp.themeColor)
            let english = try await app.send(.GET, "/manifest.webmanifest", headers: ["Accept-Language": "en"]).object()
            XCTAssertEqual(english["name"] as? String, "WhatWeEat")

            let icons = try XCTUnwrap(manifest["icons"] as? [[String: String]])
            XCTAssertEqual(Set(icons.map { $0["purpose"] ?? "" }), ["any", "maskable"])
            for icon in icons {
                let file = try await app.send(.GET, try XCTUnwrap(icon["src"]))
                XCTAssertEqual(file.status, .ok, icon["src"] ?? "")
                let size = try XCTUnwrap(pngSize(Data(buffer: file.body)), "\(icon["src"] ?? "") is a PNG")
                XCTAssertEqual("\(size.0)x\(size.1)", icon["sizes"])
            }
            let touch = try await app.send(.GET, "/images/app/apple-touch-icon.png")
            XCTAssertEqual(pngSize(Data(buffer: touch.body)).map { "\($0.0)x\($0.1)" }, "180x180")
            let favicon = try await app.send(.GET, "/favicon.ico")
            XCTAssertEqual(favicon.status, .ok)
            XCTAssertEqual([UInt8](Data(buffer: favicon.body)).prefix(4), [0, 0, 1, 0], "an ICO file")
        }
    }

    func testEveryPageLinksTheManifestAndRegistersTheWorker() async throws {
        try await withTestApp { app in
            for path in ["/", "/play/welcome", "/shop", "/map", "/mates"] {
                let page = try await app.send(.GET, path)
                XCTAssertEqual(page.status, .ok, path)
                XCTAssertTrue(page.text.contains(#"<link rel="manifest" href="/manifest.webmanifest"/>"#), path)
                XCTAssertTrue(page.text.contains(#"<link rel="apple-touch-icon" href="/images/app/apple-touch-icon.png"/>"#), path)
                XCTAssertTrue(page.text.contains(#"<meta name="theme-color" content="\#(InstallableApp.themeColor)" media="(prefers-color-scheme: light)"/>"#), path)
                XCTAssertTrue(page.text.contains(##"<meta name="theme-color" content="#151210" media="(prefers-color-scheme: dark)"/>"##), path)
                XCTAssertTrue(page.text.contains(#"src="/js/shared/install.js""#), path)
            }
            let worker = try await app.send(.GET, "/sw.js")
            XCTAssertEqual(worker.status, .ok)
            XCTAssertEqual(worker.headers.first(name: .cacheControl), "no-cache")
            XCTAssertTrue(worker.headers.first(name: .contentType)?.hasPrefix("text/javascript") == true)
            XCTAssertTrue(worker.text.contains("const VERSION = '\(AppVersion.current)';"))
            XCTAssertFalse(worker.text.contains("__VERSION__"))
            XCTAssertNil(worker.headers.first(name: "Content-Security-Policy"), "a worker runs under no document's policy")
            let offline = try await app.send(.GET, "/offline.html")
            XCTAssertEqual(offline.status, .ok)
            XCTAssertTrue(offline.text.contains("인터넷에 연결되어 있지 않아요"))
        }
    }
}
