public import Foundation
public import Mates
import Platform
import SocketIO

/// How the 새싹 스터디 apps write and read values (`../shared/contracts/sesac-study-api.md`), as
/// plain functions: their dates, their review picks, their study lists, their ids.
public enum SesacWire {
    /// The apps' own "any study" word; it means no particular topic.
    public static let anything = "anything"
    /// The reputation array the apps read: our six categories and three more they reserve.
    public static let reputationLength = 9

    // MARK: Dates (written with `JavaScriptDate`, as the apps' Node server wrote them)

    /// A date as the apps send one: ISO 8601 with or without fractions (`…T09:00:00.000Z`,
    /// `…T09:00:00Z`, `…T09:00:00+09:00`), Swift's `Date.description` (`1995-06-15 00:00:00 +0000`),
    /// or a bare day (`1995-06-15`). Nil for anything else.
    public static func parseDate(_ raw: String) -> Date? {
        let text = raw.trimmingCharacters(in: .whitespaces)
        let scalars = Array(text.unicodeScalars)
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= scalars.count else { return nil }
            var value = 0
            for scalar in scalars[position..<position + digits] {
                guard scalar.isASCII, let digit = Int(String(scalar)) else { return nil }
                value = value * 10 + digit
            }
            position += digits
            return value
        }
        func skip(_ character: Unicode.Scalar) -> Bool {
            guard position < scalars.count, scalars[position] == character else { return false }
            position += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2) else { return nil }
        var components = DateComponents(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
        var fraction = 0.0
        var offsetSeconds = 0
        if position < scalars.count {
            guard skip("T") || skip(" "), let hour = number(2), skip(":"), let minute = number(2), skip(":"), let second = number(2) else { return nil }
            (components.hour, components.minute, components.second) = (hour, minute, second)
            if skip(".") {
                var digits = 0, scale = 0.1
                while position < scalars.count, scalars[position].isASCII, let digit = Int(String(scalars[position])) {
                    fraction += Double(digit) * scale
                    scale /= 10
                    digits += 1
                    position += 1
                }
                guard (1...9).contains(digits) else { return nil }
            }
            _ = skip(" ")
            if skip("Z") {
                // UTC
            } else if position < scalars.count, scalars[position] == "+" || scalars[position] == "-" {
                let sign = scalars[position] == "-" ? -1 : 1
                position += 1
                guard let hours = number(2) else { return nil }
                _ = skip(":")
                guard let minutes = number(2), hours <= 14, minutes < 60 else { return nil }
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
            }
            guard position == scalars.count else { return nil }
        }
        guard (1...12).contains(month), (1...31).contains(day), (components.hour ?? 0) < 24, (components.minute ?? 0) < 60,
              (components.second ?? 0) < 61, let date = Calendar.utc.date(from: components),
              Calendar.utc.component(.day, from: date) == day
        else { return nil }
        return date.addingTimeInterval(fraction - Double(offsetSeconds))
    }

    // MARK: Lists

    /// What someone wants to study, as sent: repeated keys, a lone value, nothing. The word
    /// `anything` and empty values mean no particular topic.
    public static func studyList(_ values: [String]) -> [String] {
        values.filter { value in
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            return !trimmed.isEmpty && trimmed.lowercased() != anything
        }
    }

    /// A study list as the apps show it: `["anything"]` for no particular topic.
    public static func shownStudyList(_ topics: [String]) -> [String] {
        topics.isEmpty ? [anything] : topics
    }

    /// Review picks as sent: repeated values (`1`, `"0"`), or one string `"[1, 0, 0, 1]"`. Any
    /// length is taken; our six categories read the first six (missing ones count 0), the rest are
    /// ignored. Nil when a value is not 0 or 1.
    public static func reputationPicks(_ values: [String]) -> [Int]? {
        var items = values
        if values.count == 1, let only = values.first?.trimmingCharacters(in: .whitespaces), only.hasPrefix("[") {
            guard only.hasSuffix("]") else { return nil }
            items = only.dropFirst().dropLast().split(separator: ",").map(String.init)
        }
        var picks: [Int] = []
        for item in items {
            let text = item.trimmingCharacters(in: CharacterSet.whitespaces.union(CharacterSet(charactersIn: "\"")))
            guard text == "0" || text == "1" else { return nil }
            picks.append(text == "1" ? 1 : 0)
        }
        let categories = ReputationCategory.allCases.count
        return Array((picks + Array(repeating: 0, count: categories)).prefix(categories))
    }

    /// Our six counters padded to the nine the apps read.
    public static func reputation(_ counters: [Int]) -> [Int] {
        Array((counters + Array(repeating: 0, count: reputationLength)).prefix(max(reputationLength, counters.count)))
    }

    // MARK: Codes

    /// The status `POST /v1/queue` answers while a dodge penalty runs: 203, 204 or 205 for the
    /// first, second, third (and later) dodge of the day.
    public static func penaltyStatus(dodgesToday: Int) -> Int {
        202 + min(max(dodgesToday, 1), 3)
    }

    /// The apps' App Store products: faces `com.memolease.sesac1.sprout1…4`, backgrounds
    /// `com.memolease.sesac1.background1…7`, to our items of the same numbers.
    public static func shopItem(productID: String) -> (kind: MatesItemKind, index: Int)? {
        let prefix = "com.memolease.sesac1."
        guard productID.hasPrefix(prefix) else { return nil }
        let name = productID.dropFirst(prefix.count)
        for (word, kind) in [("sprout", MatesItemKind.avatar), ("background", .background)] where name.hasPrefix(word) {
            guard let index = Int(name.dropFirst(word.count)), index >= 1, MatesShopCatalog.exists(kind, index) else { return nil }
            return (kind, index)
        }
        return nil
    }

    /// `0` female, `1` male, as the apps send and read; nil for anything else.
    public static func gender(_ value: Int?) -> MatesGender? {
        switch value {
        case 0: .female
        case 1: .male
        default: nil
        }
    }

    /// Our gender as the apps read it; someone who did not say is shown as 0 (the apps know no third value).
    public static func genderNumber(_ gender: MatesGender) -> Int {
        gender == .male ? 1 : 0
    }
}
