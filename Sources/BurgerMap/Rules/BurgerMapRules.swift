public import Foundation
public import struct Platform.Coordinate

/// A rule a place, a review or a comment broke; each maps to one error code.
public enum BurgerMapProblem: Error, Equatable, Sendable {
    case invalidPlaceName, invalidAddress, invalidPhone
    case invalidRating, invalidTitle, invalidText, invalidPhotoCount, duplicatePhoto
    case invalidComment, invalidReportReason
}

/// The rules of places, reviews and comments, as plain functions.
public enum BurgerMapRules {
    public static let ratings = 1...5
    public static let photosPerReview = 1...5
    public static let maxTitleCharacters = 60
    public static let maxTextCharacters = 2_000
    public static let maxCommentCharacters = 500
    public static let maxReasonCharacters = 500
    /// Two places with the same name (`matchKey`) this close are one place: a registration is
    /// handed the stored place, unchanged, and the place takes the registration's Kakao id if it
    /// had none (Kakao's pin is the shop's door). Farther, the registration is a place of its own
    /// with its own phone and address: at 40 m the probe of 2026-12-05 was handed another
    /// registrant's place, phone and address. The one number for both rules.
    public static let samePlaceMeters = 20.0
    /// A place of the same name farther than `samePlaceMeters` but this close may still be the
    /// same shop (a wide building, a GPS fix off the pin): the registration becomes a place of its
    /// own and operators get a suggestion (`same_name_nearby`) that the two may be one.
    public static let namesakeMeters = 50.0
    /// A Kakao place id names a stored place only this close to it: an id registered far from
    /// here first (squatted, or a wrong pin) never gives this registration that place.
    public static let kakaoMatchMeters = 200.0
    /// A registration of a stored place further than this (only a Kakao id names a place that
    /// far), or with another phone or address, disagrees with it: kept for operators as a
    /// suggestion, never applied.
    public static let disagreementMeters = 50.0
    /// Places made by accounts younger than this are shown as unverified until another account
    /// reviews there.
    public static let unverifiedCreatorAge: TimeInterval = 3 * 24 * 3600

    /// How a registration disagrees with the place it names (empty: it agrees). An empty phone or
    /// address says nothing; phones compare by digits, addresses by `nameKey`.
    public static func disagreements(stored: (address: String, phone: String?, at: Coordinate),
                                     registered: (address: String, phone: String?, at: Coordinate)) -> [String] {
        var reasons: [String] = []
        if stored.at.distanceMeters(to: registered.at) > disagreementMeters { reasons.append("position") }
        let digits = { (phone: String?) in (phone ?? "").filter(\.isNumber) }
        if !digits(registered.phone).isEmpty, digits(registered.phone) != digits(stored.phone) { reasons.append("phone") }
        if !registered.address.isEmpty, nameKey(registered.address) != nameKey(stored.address) { reasons.append("address") }
        return reasons
    }

    /// A place's fields. `addressKnown` false: an empty address is allowed (a Kakao place without
    /// a road address, from the LookForRealBurger app: its coordinates are the place).
    public static func checkPlace(name: String, address: String, phone: String?, addressKnown: Bool = true) throws(BurgerMapProblem) {
        guard isText(name, characters: 1...60) else { throw .invalidPlaceName }
        guard (!addressKnown && address.isEmpty) || isText(address, characters: 1...120) else { throw .invalidAddress }
        if let phone, !phone.isEmpty {
            guard phone.count <= 20, phone.allSatisfy({ $0.isASCII && ($0.isNumber || "+-() ".contains($0)) }),
                  phone.contains(where: \.isNumber)
            else { throw .invalidPhone }
        }
    }

    public static func checkReview(rating: Int, title: String, text: String, photoIDs: [UUID]) throws(BurgerMapProblem) {
        guard ratings.contains(rating) else { throw .invalidRating }
        guard isText(title, characters: 1...maxTitleCharacters) else { throw .invalidTitle }
        guard isText(text, characters: 0...maxTextCharacters, allowNewlines: true) else { throw .invalidText }
        guard photosPerReview.contains(photoIDs.count) else { throw .invalidPhotoCount }
        guard Set(photoIDs).count == photoIDs.count else { throw .duplicatePhoto }
    }

    public static func checkComment(_ text: String) throws(BurgerMapProblem) {
        guard isText(text, characters: 1...maxCommentCharacters, allowNewlines: true) else { throw .invalidComment }
    }

    public static func checkReportReason(_ text: String) throws(BurgerMapProblem) {
        guard isText(text, characters: 1...maxReasonCharacters, allowNewlines: true) else { throw .invalidReportReason }
    }

    /// The words that name what every place on this map serves ("햄버거", "버거", "수제버거",
    /// "burger"): a search for one of them is a search for every place, not for places with the
    /// word in their name (the UX review found "햄버거" listing none of the map's burger places).
    public static let everyPlaceWords: Set<String> = [
        "버거", "햄버거", "수제버거", "버거집", "햄버거집", "수제버거집", "burger", "burgers", "hamburger", "hamburgers", "バーガー", "ハンバーガー",
    ]

    /// The search words, or nil when they name every place (`everyPlaceWords`).
    public static func searchWords(_ text: String?) -> String? {
        guard let text else { return nil }
        return everyPlaceWords.contains(nameKey(text)) ? nil : text
    }

    /// The name as places are compared: compatibility-normalized, case-folded, without spaces
    /// (`더블 치즈버거` and `더블치즈버거` are one name).
    public static func nameKey(_ name: String) -> String {
        name.precomposedStringWithCompatibilityMapping.lowercased().filter { !$0.isWhitespace }
    }

    /// Whether two registrations are one place: the same `matchKey` within `samePlaceMeters`.
    public static func isSamePlace(_ a: (name: String, at: Coordinate), _ b: (name: String, at: Coordinate)) -> Bool {
        matchKey(a.name) == matchKey(b.name) && a.at.distanceMeters(to: b.at) <= samePlaceMeters
    }

    /// Whether `b` is a namesake of `a` close enough to tell operators about (within
    /// `namesakeMeters`) but too far to be handed over (beyond `samePlaceMeters`).
    public static func isNearbyNamesake(_ a: (name: String, at: Coordinate), _ b: (name: String, at: Coordinate)) -> Bool {
        let distance = a.at.distanceMeters(to: b.at)
        return matchKey(a.name) == matchKey(b.name) && distance > samePlaceMeters && distance <= namesakeMeters
    }

    /// Branch suffixes a shop's name may carry in one directory and not in another
    /// ("버거킹 서울역점" on Kakao, "버거킹 서울역" in our catalog), longest first.
    static let branchSuffixes = ["지점", "본점", "점"]

    /// A name as two directories of one shop would agree on it: `nameKey` (compatibility forms,
    /// case, spaces), without punctuation, and without a branch suffix.
    public static func matchKey(_ name: String) -> String {
        var key = nameKey(name).filter { !$0.isPunctuation && !$0.isSymbol }
        if let suffix = branchSuffixes.first(where: { key.hasSuffix($0) && key.count > $0.count }) { key.removeLast(suffix.count) }
        return key
    }

    /// Text within a length (`String.fits`, four bytes a character) as sent, at least the lower
    /// bound of characters once trimmed, without control characters (newlines and tabs only where
    /// allowed).
    package static func isText(_ text: String, characters: ClosedRange<Int>, allowNewlines: Bool = false) -> Bool {
        guard text.fits(characters: characters.upperBound, bytes: characters.upperBound * 4) else { return false }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count >= characters.lowerBound else { return false }
        return !trimmed.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control && !(allowNewlines && (scalar == "\n" || scalar == "\t" || scalar == "\r"))
        }
    }
}

/// Ranking places where the list is not by distance: a Bayesian average, the place's mean pulled
/// toward a prior as if it had `priorWeight` extra reviews of `priorMean` stars. One 5★ review
/// scores (5·3.5 + 5) / 6 ≈ 3.75, forty reviews averaging 4.6★ score (5·3.5 + 184) / 45 ≈ 4.48:
/// many good reviews beat one perfect one, and a new place is neither buried nor on top.
public enum PlaceRanking {
    /// The prior: a middling-good burger, weighted like five reviews (docs/BURGER_MAP.md).
    public static let priorMean = 3.5
    public static let priorWeight = 5.0

    public static func score(ratingSum: Int, reviewCount: Int) -> Double {
        (priorMean * priorWeight + Double(ratingSum)) / (priorWeight + Double(reviewCount))
    }
}
