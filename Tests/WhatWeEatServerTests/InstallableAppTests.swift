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
            XCTAssertTrue(worker.text.contains("'/js/shared/offline.js'"), "the offline page's script is kept with it")
        }
    }

    /// Issue 61, point 5: the offline page blamed the person's internet when the server was down,
    /// showed three languages at once and its "다시 시도" went to `/`. It now carries every
    /// language's texts for its script, both reasons, and retries the address it stands in for.
    func testTheOfflinePageCarriesEveryLanguageAndBothReasons() async throws {
        try await withTestApp { app in
            let offline = try await app.send(.GET, "/offline.html")
            XCTAssertEqual(offline.status, .ok)
            XCTAssertEqual(offline.headers.contentType, .html)
            let block = try XCTUnwrap(offline.text.firstMatch(of: /<script type="application\/json" id="offline-texts">([^<]*)<\/script>/)?.1)
            let texts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(block.utf8)) as? [String: [String: String]])
            XCTAssertEqual(Set(texts.keys), ["ko", "en", "ja"])
            XCTAssertEqual(texts["ko"]?["title_offline"], "인터넷에 연결되어 있지 않아요")
            XCTAssertEqual(texts["ko"]?["title_server"], "서버가 응답하지 않아요")
            XCTAssertEqual(texts["en"]?["title_server"], "The site isn't answering")
            for (language, strings) in texts {
                XCTAssertEqual(Set(strings.keys), Set(InstallableApp.offlineTexts), language)
                XCTAssertFalse(strings.values.contains { $0.isEmpty || $0.hasPrefix("offline.") }, "\(language): every text translated")
            }
            // One language shown without a script (Korean), not three at once; the retry reloads this address.
            XCTAssertTrue(offline.text.contains(#"<h1 id="offline-title">연결할 수 없어요</h1>"#))
            let shown = offline.text.replacingOccurrences(of: String(block), with: "")
            XCTAssertFalse(shown.contains(#"lang="en""#) || shown.contains("Try again"), "the other languages are data for the script")
            XCTAssertTrue(offline.text.contains(#"<a class="button primary" id="offline-retry" href="">다시 시도</a>"#))
            XCTAssertTrue(offline.text.contains(#"<script type="module" src="/js/shared/offline.js"></script>"#))
            XCTAssertFalse(offline.text.contains("csrf") || offline.text.contains("page-config"), "nothing personal: the worker keeps it for everyone")
        }
    }
}
