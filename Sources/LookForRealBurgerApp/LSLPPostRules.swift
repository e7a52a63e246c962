public import Foundation
import Platform

/// How the LookForRealBurger app keeps the burger map in the LSLP server's generic posts
/// (`../shared/contracts/lslp-burger-api.md` §4), as plain functions: which product ids mean what,
/// the `limit` it sends, the tags the server drew from `content`, the file paths it stores, the
/// position and Kakao id of a shop.
public enum LSLPPostRules {
    /// The two product ids the app uses. Others answer 400: no second store for other apps' posts.
    public enum Product: String, CaseIterable, Sendable {
        /// A burger shop: our place.
        case place = "LFRB_BURGER_HOUSE_TEST"
        /// A review of a shop: our review.
        case review = "LFRB_BURGER_HOUSE_REVIEW_TEST"
    }

    /// The original server's password rule on join: any password that is not empty. The app
    /// checks nothing, and can show no message but "입력칸을 채워주세요" for a refusal (its 400),
    /// so our eight characters would stop its users at a toast that blames a filled-in field.
    public static let passwordMinLength = 1

    /// The product id of the post the app's "후원하기" pays for (not a list of its own).
    public static let donationProduct = "LFRB_DONATION"

    /// The map asks for every shop in one page (`limit=300000`).
    public static let maxLimit = 300_000
    public static let defaultLimit = 20
    /// The `next_cursor` that tells the app there are no more pages.
    public static let lastPage = "0"

    /// `limit` as the app sends it, a string of digits: 1…300000; nil for anything else.
    public static func limit(_ raw: String?) -> Int? {
        guard let raw else { return defaultLimit }
        guard !raw.isEmpty, raw.utf8.count <= 7, raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let value = Int(raw), (1...maxLimit).contains(value) else { return nil }
        return value
    }

    /// The tags LSLP drew from a post's `content`: each `#` followed by letters, digits or `_`, up
    /// to the first other character (`#버거킹 강남점` → `버거킹`), without the `#`, each once.
    public static func hashTags(in text: String) -> [String] {
        var tags: [String] = []
        var current: String?
        func finish() {
            if let tag = current, !tag.isEmpty, !tags.contains(tag) { tags.append(tag) }
            current = nil
        }
        for character in text {
            if character == "#" {
                finish()
                current = ""
            } else if current != nil, character.isLetter || character.isNumber || character == "_" {
                current?.append(character)
            } else {
                finish()
            }
        }
        finish()
        return tags
    }

    // MARK: Files

    static let filePrefix = "uploads/posts/"

    /// Where the app finds a review photo: relative, no leading `/` (it prefixes `v1/`).
    public static func filePath(photoID: UUID, fileExtension: String) -> String {
        "\(filePrefix)\(photoID.uuidString.lowercased()).\(fileExtension)"
    }

    /// The photo a path of `filePath` names (the extension is not checked: the id is the photo);
    /// nil for any other text.
    public static func photoID(fromPath path: String) -> UUID? {
        guard path.hasPrefix(filePrefix) else { return nil }
        return photoID(fromFileName: String(path.dropFirst(filePrefix.count)))
    }

    /// The photo a file name `<uuid>.<ext>` names.
    public static func photoID(fromFileName name: String) -> UUID? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...4).contains(parts[1].count), parts[1].allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return UUID(uuidString: String(parts[0]))
    }

    // MARK: Shops

    /// A shop's position from `content1` (longitude) and `content2` (latitude), decimal strings as
    /// Kakao gives them; nil when either is not a finite number.
    public static func position(longitude: String?, latitude: String?) -> (lat: Double, lon: Double)? {
        guard let longitude, let latitude,
              let lon = Double(longitude.trimmingCharacters(in: .whitespaces)), let lat = Double(latitude.trimmingCharacters(in: .whitespaces)),
              lon.isFinite, lat.isFinite else { return nil }
        return (lat, lon)
    }

    /// A shop's position as the app parses it back (`Double(content1)`): Swift's shortest exact form.
    public static func coordinateText(_ degrees: Double) -> String { String(degrees) }

    /// A Kakao place id (`content5`, the app's dedupe key): 1–40 ASCII letters, digits, `-` or `_`.
    public static func isPlaceKey(_ key: String) -> Bool {
        (1...40).contains(key.utf8.count) && key.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
        }
    }

    /// The `content` the app writes for a shop, which we do not store: `#` and its name.
    public static func shopContent(name: String) -> String { "#" + name }
}
