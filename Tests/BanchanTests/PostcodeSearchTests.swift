@testable import Banchan
import Platform
import WhatWeEatTesting
import XCTVapor

/// Issue 61, address search: checkout and the address book load the Kakao/Daum postcode service
/// (its script and frame named in those pages' policy only), with the plain fields when it is off
/// or cannot load.
final class PostcodeSearchTests: XCTestCase {
    func testCheckoutAndTheAddressBookLoadTheServiceAndOnlyTheyAllowIt() async throws {
        try await withTestApp { app in
            var browser = try await CookieBrowser.signedUp(app, nickname: "주소찾기")
            _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "1"])
            for path in ["/shop/checkout", "/shop/addresses/new"] {
                let page = try await browser.get(path)
                XCTAssertEqual(page.status, .ok, path)
                // The service's script is fetched on the button's first press, never with the page.
                XCTAssertFalse(page.text.contains(#"<script src="\#(PostcodeSettings.daumScript)""#), path)
                XCTAssertTrue(page.text.contains(#"data-script="\#(PostcodeSettings.daumScript)""#), path)
                XCTAssertTrue(page.text.contains(#"id="postcode-search""#) && page.text.contains(#"src="/js/shared/postcode.js""#), path)
                let policy = try XCTUnwrap(page.headers.first(name: "Content-Security-Policy"), path)
                XCTAssertTrue(policy.contains("script-src 'self' https://t1.daumcdn.net;"), policy)
                XCTAssertTrue(policy.contains("frame-src https://postcode.map.daum.net;"), policy)
            }
            let checkout = try await browser.get("/shop/checkout")
            XCTAssertTrue(checkout.text.contains(#"data-postcode="checkout-postcode" data-address="checkout-address" data-detail="checkout-addressDetail""#))
            for path in ["/shop", "/shop/cart", "/shop/dishes/\(Fixtures.bulgogi)"] {
                let page = try await browser.get(path)
                let policy = page.headers.first(name: "Content-Security-Policy") ?? ""
                XCTAssertFalse(policy.contains("daum") || page.text.contains("postcode.v2.js"), "\(path) allows only itself")
            }
        }
    }

    func testOffMeansThePlainFields() async throws {
        try await withTestApp(adjust: { $0.postcode.scriptURL = nil }) { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "1"])
            let checkout = try await browser.get("/shop/checkout")
            XCTAssertFalse(checkout.text.contains("postcode-search") || checkout.text.contains("daumcdn"))
            XCTAssertTrue(checkout.text.contains(#"id="checkout-postcode""#), "the fields are typed as before")
            XCTAssertFalse(checkout.headers.first(name: "Content-Security-Policy")?.contains("frame-src") ?? true)
        }
    }

    func testTheSettings() throws {
        func load(_ values: [String: String]) throws -> PostcodeSettings {
            try PostcodeSettings.load(from: EnvironmentVariables(values: values, appEnvironment: .development))
        }
        XCTAssertEqual(try load([:]).scriptURL, PostcodeSettings.daumScript)
        XCTAssertNil(try load(["POSTCODE_SCRIPT_URL": "off"]).scriptURL)
        XCTAssertEqual(try load(["POSTCODE_SCRIPT_URL": "http://127.0.0.1:9999/postcode.js"]).scriptOrigin, "http://127.0.0.1:9999")
        XCTAssertThrowsError(try load(["POSTCODE_SCRIPT_URL": "javascript:alert(1)"]))
        XCTAssertThrowsError(try load(["POSTCODE_FRAME_ORIGIN": "https://postcode.map.daum.net/path"]))
        XCTAssertEqual(try load(["POSTCODE_FRAME_ORIGIN": "https://example.com"]).frameOrigin, "https://example.com")
    }
}
