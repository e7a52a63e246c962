@testable import Platform
import XCTest

/// Issue 42: Korean particles follow the sound a word ends with, as people write them — never
/// "을(를)" — through `{name|을/를}` in a translation, on the server (here) and in the pages'
/// scripts (Public/js/shared/config.js, the browser stage's test_accessibility checks a page).
final class KoreanParticleTests: XCTestCase {
    func testHangulEndingsChooseTheForm() {
        XCTAssertEqual(Translator.fill("{t|을/를} 담았어요.", ["t": "김치찌개"]), "김치찌개를 담았어요.")
        XCTAssertEqual(Translator.fill("{t|을/를} 담았어요.", ["t": "불고기 덮밥"]), "불고기 덮밥을 담았어요.")
        XCTAssertEqual(Translator.fill("{t|은/는} 이미 있어요.", ["t": "알고리즘"]), "알고리즘은 이미 있어요.")
        XCTAssertEqual(Translator.fill("{t|이/가} 왔어요.", ["t": "미나"]), "미나가 왔어요.")
        XCTAssertEqual(Translator.fill("{t|과/와} 함께", ["t": "밥"]), "밥과 함께")
    }

    func testRieulTakesRoLikeAVowel() {
        XCTAssertEqual(Translator.fill("{d|으로/로} 보냈어요.", ["d": "서울"]), "서울로 보냈어요.")
        XCTAssertEqual(Translator.fill("{d|으로/로} 보냈어요.", ["d": "부산역"]), "부산역으로 보냈어요.")
        XCTAssertEqual(Translator.fill("{d|으로/로} 보냈어요.", ["d": "제주"]), "제주로 보냈어요.")
        // ㄹ takes 을, not 를: only 으로/로 treats it like a vowel.
        XCTAssertEqual(Translator.fill("{d|을/를}", ["d": "서울"]), "서울을")
    }

    func testDigitsLettersAndWeightsAreReadAloud() {
        XCTAssertEqual(Translator.fill("{t|을/를}", ["t": "[소중한식사] 한우 소불고기 500g"]), "[소중한식사] 한우 소불고기 500g을", "그램")
        XCTAssertEqual(Translator.fill("{t|을/를}", ["t": "감자 1kg"]), "감자 1kg을")
        XCTAssertEqual(Translator.fill("{d|으로/로}", ["d": "010-1234-5678"]), "010-1234-5678로", "팔")
        XCTAssertEqual(Translator.fill("{d|으로/로}", ["d": "010-1234-5673"]), "010-1234-5673으로", "삼")
        XCTAssertEqual(Translator.fill("{d|으로/로}", ["d": "mina@example.com"]), "mina@example.com으로", "엠")
        XCTAssertEqual(Translator.fill("{t|은/는}", ["t": "IMG_2041.jpg"]), "IMG_2041.jpg는", "지")
        XCTAssertEqual(Translator.fill("{t|을/를}", ["t": "“치즈버거”"]), "“치즈버거”를", "quotes after the word are skipped")
        XCTAssertEqual(Translator.fill("{t|을/를}", ["t": "🍔"]), "🍔을", "nothing readable: the consonant form")
    }

    func testOtherBracesAndMissingArgumentsStayAsWritten() {
        XCTAssertEqual(Translator.fill("{x|을/를} {y}", ["y": "밥"]), "{x|을/를} 밥")
        XCTAssertEqual(Translator.fill("{t|을}", ["t": "밥"]), "밥을", "one form is written as it is")
    }

    func testNoKoreanTextWritesBothForms() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Resources/translations/ko.json")
        let texts = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: url))
        for (key, text) in texts {
            for both in ["을(를)", "를(을)", "은(는)", "는(은)", "이(가)", "가(이)", "(으)로", "과(와)", "와(과)"] {
                XCTAssertFalse(text.contains(both), "\(key): \(text)")
            }
        }
    }
}
