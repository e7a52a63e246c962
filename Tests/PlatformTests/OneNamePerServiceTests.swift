import Foundation
import XCTest

/// Issue 61, point 6: the UX review found five names for one product — the shop's share card
/// "배민찬 · WhatWeEat" (another company's brand), the receipt "WhatWeEat 반찬가게", mates as
/// "밥·공부 메이트" and "밥·스터디 메이트", the map as "진짜 버거 지도" and "주변 식당 지도". Each
/// service now has one name per language (`service.<id>.name`) that its headers, console, receipt
/// and push settings use, the product is `app.name` in every language's own text, and 배민찬 (a
/// registered brand) is never on our pages.
final class OneNamePerServiceTests: XCTestCase {
    func texts(_ language: String) throws -> [String: String] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Resources/translations/\(language).json")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: String])
    }

    /// Texts that name a service: each must be its service's name, or contain it.
    static let named: [(service: String, exactly: [String], containing: [String])] = [
        ("burger_map", ["burger_map.title", "admin.today.map", "burger_map.js.map.map_label"], ["burger_map.tabs"]),
        ("mates", ["mates.home.title", "admin.today.mates"], ["push.kind.chat.hint"]),
        ("banchan", ["banchan.title", "admin.today.shop"], ["banchan.receipt.shop_name"]),
    ]

    func testEveryServiceHasOneNameInEachLanguage() throws {
        for language in ["ko", "en", "ja"] {
            let texts = try texts(language)
            let product = try XCTUnwrap(texts["app.name"])
            for (service, exactly, containing) in Self.named {
                let name = try XCTUnwrap(texts["service.\(service).name"], "\(language) \(service)")
                for key in exactly { XCTAssertEqual(texts[key], name, "\(language) \(key)") }
                for key in containing { XCTAssertTrue(texts[key]?.contains(name) == true, "\(language) \(key): \(texts[key] ?? "none") names \(name)") }
            }
            XCTAssertEqual(texts["banchan.receipt.shop_name"], "\(product) \(try XCTUnwrap(texts["service.banchan.name"]))", language)
            // The product goes by its own language's name: no "WhatWeEat" in Korean or Japanese text
            // (the console's build line names the software).
            if language != "en" {
                let stray = texts.filter { $0.key != "admin.build" && $0.value.contains("WhatWeEat") }.keys.sorted()
                XCTAssertEqual(stray, [], "\(language) calls the product \(product)")
            }
        }
    }

    func testNoPageOrCardCallsTheShop배민찬() throws {
        for language in ["ko", "en", "ja"] {
            XCTAssertEqual(try texts(language).filter { $0.value.contains("배민찬") }.keys.sorted(), [], language)
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        let drawing = try String(contentsOf: root.appendingPathComponent("Resources/catalogs/draw_dish_photos.py"), encoding: .utf8)
        XCTAssertFalse(drawing.contains(#"brand = "배민찬"#), "the share cards' brand line")
    }
}
