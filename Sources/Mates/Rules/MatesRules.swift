public import Foundation
import enum Platform.EmailInbox

/// A rule a mates input broke; each maps to one error code (`MatesService.appError`).
public enum MatesProblem: Error, Equatable, Sendable {
    case invalidGender, invalidBirthYear, invalidAgeRange
    case tooManyTopics, invalidTopic
    case invalidDestination, invalidCode
    case invalidReputation, invalidComment
    case invalidReportCategories
    case invalidMessage
}

/// Where a verification code goes.
public enum VerificationChannel: String, Sendable, Codable, CaseIterable {
    case phone, email
}

public enum MatesGender: String, Sendable, Codable, CaseIterable {
    case male, female, unspecified
}

/// Where a person is in finding a mate. One match per person at a time.
public enum MatesState: String, Sendable, Codable {
    case idle, searching, matched
}

/// The six things a mate can be thanked for after a match (the seed app's 새싹 타이틀), in the
/// order clients send and read them.
public enum ReputationCategory: String, Sendable, CaseIterable, Codable {
    case goodManners = "good_manners"
    case punctual
    case quickReply = "quick_reply"
    case kind
    case skilled
    case worthwhile

    /// The Korean labels of the seed app, for documentation and the pages' fallback.
    public var korean: String {
        switch self {
        case .goodManners: "좋은 매너"
        case .punctual: "정확한 시간 약속"
        case .quickReply: "빠른 응답"
        case .kind: "친절한 성격"
        case .skilled: "능숙한 실력"
        case .worthwhile: "유익한 시간"
        }
    }
}

public enum ReportCategory: String, Sendable, CaseIterable, Codable {
    case rude, noShow = "no_show", harassment, spam, fakeProfile = "fake_profile", other
}

/// The rules of profiles, searching, reviews, reports and chat, as plain functions.
public enum MatesRules {
    public static let maxTopics = 8
    public static let maxTopicCharacters = 20
    public static let ages = 14...100
    public static let defaultAgeRange = 18...65
    public static let maxReviewComment = 500
    public static let maxReportComment = 500
    public static let maxMessageCharacters = 1_000
    /// Distinct reporters that suspend an account from mates until an admin lifts it.
    public static let reportsToSuspend = 3

    // MARK: Profile

    public static func checkBirthYear(_ year: Int, now: Date) throws(MatesProblem) {
        let current = calendarYear(of: now)
        guard (current - ages.upperBound)...(current - ages.lowerBound) ~= year else { throw .invalidBirthYear }
    }

    public static func checkAgeRange(min: Int, max: Int) throws(MatesProblem) {
        guard ages.contains(min), ages.contains(max), min <= max else { throw .invalidAgeRange }
    }

    /// Age as the difference of calendar years (what a birth year alone can tell).
    public static func age(birthYear: Int, now: Date) -> Int { calendarYear(of: now) - birthYear }

    public static func calendarYear(of date: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.component(.year, from: date)
    }

    /// Topics as stored: trimmed, inner spaces collapsed, duplicates (ignoring case) dropped,
    /// each 1…20 characters without control characters, at most eight.
    public static func normalizedTopics(_ raw: [String]) throws(MatesProblem) -> [String] {
        guard raw.count <= maxTopics else { throw .tooManyTopics }
        var topics: [String] = []
        var seen = Set<String>()
        for item in raw {
            let topic = item.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard (1...maxTopicCharacters).contains(topic.count), topic.utf8.count <= maxTopicCharacters * 4,
                  !topic.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw .invalidTopic }
            if seen.insert(topic.lowercased()).inserted { topics.append(topic) }
        }
        return topics
    }

    /// Whether two people searching would see each other: each one's age within the other's range.
    public static func agesMatch(_ a: (age: Int, range: ClosedRange<Int>), _ b: (age: Int, range: ClosedRange<Int>)) -> Bool {
        a.range.contains(b.age) && b.range.contains(a.age)
    }

    // MARK: Verification

    /// A destination as codes are sent: a phone number in international form (`+82…`; a Korean
    /// `010-…` number gets `+82`, and a `+82 010-…` loses the trunk `0` it should not have), or a
    /// lower-cased email address. Codes are counted by `inboxKey`.
    public static func normalizedDestination(_ raw: String, channel: VerificationChannel) throws(MatesProblem) -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        switch channel {
        case .phone:
            guard text.count <= 24, text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-() ".contains($0)) }) else { throw .invalidDestination }
            var digits = text.filter(\.isNumber)
            if text.hasPrefix("+") {
                // International already; Korea's trunk 0 does not belong after +82 (`+82 010-…`).
                if digits.hasPrefix("82") {
                    digits = "82" + digits.dropFirst(2).drop { $0 == "0" }
                }
            } else if digits.hasPrefix("0") {
                digits = "82" + digits.dropFirst()
            } else {
                throw .invalidDestination
            }
            guard (8...15).contains(digits.count), digits.first != "0" else { throw .invalidDestination }
            return "+" + digits
        case .email:
            let email = text.lowercased()
            let parts = email.split(separator: "@", omittingEmptySubsequences: false)
            guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64,
                  parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
                  email.allSatisfy({ $0.isASCII && !$0.isWhitespace && !"<>()[],;:\\\"".contains($0) })
            else { throw .invalidDestination }
            return email
        }
    }

    /// The inbox a normalized destination reaches, as codes are counted and a verified destination
    /// is held: an address's `EmailInbox.key`; a phone number is its normalized form.
    public static func inboxKey(_ destination: String, channel: VerificationChannel) -> String {
        channel == .email ? EmailInbox.key(destination) : destination
    }

    /// Whether a normalized phone number (`+…`) has one of `countries`' calling codes.
    public static func phoneIsIn(_ countries: [String], _ destination: String) -> Bool {
        countries.contains { destination.hasPrefix("+" + $0) }
    }

    /// Six digits, as typed (spaces around allowed).
    public static func normalizedCode(_ raw: String) throws(MatesProblem) -> String {
        let code = raw.trimmingCharacters(in: .whitespaces)
        guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw .invalidCode }
        return code
    }

    /// What a number shows of itself in answers: a Korean mobile number as Koreans write it
    /// (`010-****-5678`), another as `+44******3456`; `a***@example.com`.
    public static func masked(_ destination: String, channel: VerificationChannel) -> String {
        switch channel {
        case .phone:
            let domestic = "0" + destination.dropFirst(3)
            if destination.hasPrefix("+82"), domestic.hasPrefix("01"), (10...11).contains(domestic.count),
               domestic.allSatisfy({ $0.isASCII && $0.isNumber }) {
                return domestic.prefix(3) + "-" + String(repeating: "*", count: domestic.count - 7) + "-" + domestic.suffix(4)
            }
            let visible = 4
            guard destination.count > visible + 3 else { return destination }
            return String(destination.prefix(3)) + String(repeating: "*", count: destination.count - 3 - visible) + String(destination.suffix(visible))
        case .email:
            guard let at = destination.firstIndex(of: "@") else { return destination }
            return String(destination.prefix(1)) + "***" + String(destination[at...])
        }
    }

    // MARK: After a match

    /// A review's picks: one 0 or 1 per category, in `ReputationCategory` order.
    public static func checkReputation(_ picks: [Int]) throws(MatesProblem) -> [Bool] {
        guard picks.count == ReputationCategory.allCases.count, picks.allSatisfy({ $0 == 0 || $0 == 1 }) else { throw .invalidReputation }
        return picks.map { $0 == 1 }
    }

    public static func checkReviewComment(_ text: String) throws(MatesProblem) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard isText(text, maxCharacters: maxReviewComment, allowEmpty: true) else { throw .invalidComment }
        return trimmed
    }

    public static func checkReport(categories raw: [String], comment: String) throws(MatesProblem) -> (categories: [ReportCategory], comment: String) {
        var categories: [ReportCategory] = []
        for value in raw {
            guard let category = ReportCategory(rawValue: value) else { throw .invalidReportCategories }
            if !categories.contains(category) { categories.append(category) }
        }
        guard !categories.isEmpty else { throw .invalidReportCategories }
        let trimmed = comment.trimmingCharacters(in: .whitespacesAndNewlines)
        guard isText(comment, maxCharacters: maxReportComment, allowEmpty: true) else { throw .invalidComment }
        return (categories, trimmed)
    }

    /// A chat message: 1…1,000 characters that are not all spaces; newlines allowed.
    public static func checkMessage(_ text: String) throws(MatesProblem) -> String {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
              isText(text, maxCharacters: maxMessageCharacters, allowEmpty: false) else { throw .invalidMessage }
        return text
    }

    /// Text as sent within a length (`String.fits`, four bytes a character), without control
    /// characters but newlines and tabs.
    package static func isText(_ text: String, maxCharacters: Int, allowEmpty: Bool) -> Bool {
        guard allowEmpty || !text.isEmpty, text.fits(characters: maxCharacters, bytes: maxCharacters * 4) else { return false }
        return !text.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\t" && scalar != "\r"
        }
    }
}

/// Leaving a match early ("dodging") pauses searching, longer with each dodge of a day: one
/// minute, two, then three for the third and every later one — what every 새싹 스터디 app tells its
/// user ("1분/2분/3분동안 이용하실 수 없습니다", its 203/204/205), and the same on the web, so no
/// one is told three minutes and kept out for a day. Dodging is also counted in the person's
/// `dodgeNum`, and reports (three suspend) deal with people who abuse it.
public enum DodgePenalty {
    public static let window: TimeInterval = 24 * 3600
    /// The pauses after the first, second and third (and every later) dodge of a day.
    public static let coolDowns: [TimeInterval] = [60, 120, 180]
    /// How many levels the apps show (`dodgepenalty` 0–3).
    public static var levels: Int { coolDowns.count }

    /// Until when searching is paused after a dodge at `now`, given the dodges of the last day
    /// (this one included); nil for none.
    public static func blockedUntil(dodgesInWindow: Int, now: Date) -> Date? {
        guard dodgesInWindow >= 1 else { return nil }
        return now.addingTimeInterval(coolDowns[min(dodgesInWindow, levels) - 1])
    }
}

/// "Most wanted nearby": the topics of people searching around, by how many want each (a person
/// counts once per topic, case folded); ties by name. The first spelling seen is shown.
public enum TopicRanking {
    public static func mostWanted(_ topicLists: [[String]], limit: Int = 8) -> [String] {
        mostWanted(people: topicLists.map { topics in
            var seen = Set<String>()
            return topics.compactMap { topic in seen.insert(topic.lowercased()).inserted ? (topic.lowercased(), topic) : nil }
        }, limit: limit)
    }

    /// The same from topics already folded and unique per person (`key` lower-cased).
    public static func mostWanted(people: some Sequence<[(key: String, spelling: String)]>, limit: Int = 8) -> [String] {
        var counts: [String: (count: Int, spelling: String)] = [:]
        for topics in people {
            for (key, spelling) in topics { counts[key, default: (0, spelling)].count += 1 }
        }
        return top(counts.map { (key: $0.key, spelling: $0.value.spelling, count: $0.value.count) }, limit: limit)
    }

    /// The order of the ranking: more people first, then by name.
    public static func top(_ counted: [(key: String, spelling: String, count: Int)], limit: Int) -> [String] {
        counted.sorted { $0.count != $1.count ? $0.count > $1.count : $0.key < $1.key }.prefix(limit).map(\.spelling)
    }
}
