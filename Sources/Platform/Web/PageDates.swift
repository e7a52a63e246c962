package import Foundation
import NIOConcurrencyHelpers

/// Dates as pages show them. Making a `DateFormatter` (or an `ISO8601DateFormatter`) loads ICU
/// data, and pages made one per row: the inbox, the shop's orders and a review paid that on every
/// view. The machine form and the shop's dotted form are written directly; the reader's medium
/// form comes from one formatter per language, kept.
package enum PageDates {
    /// `2026-11-26T21:27:54Z` (UTC), for `<time datetime>`: what `ISO8601DateFormatter` writes.
    package static func machine(_ date: Date) -> String {
        let fields = utcFields(date)
        return "\(pad(fields.tm_year + 1900, 4))-\(pad(fields.tm_mon + 1))-\(pad(fields.tm_mday))T"
            + "\(pad(fields.tm_hour)):\(pad(fields.tm_min)):\(pad(fields.tm_sec))Z"
    }

    /// `2026.11.27 06:27` in Seoul's time (UTC+9; Korea has kept no summer time since 1988), as
    /// the shipped shop app writes order dates.
    package static func dotted(_ date: Date) -> String {
        let fields = utcFields(date.addingTimeInterval(9 * 3600))
        return "\(pad(fields.tm_year + 1900, 4)).\(pad(fields.tm_mon + 1)).\(pad(fields.tm_mday)) \(pad(fields.tm_hour)):\(pad(fields.tm_min))"
    }

    /// The medium date and short time in the reader's language, in Seoul's time.
    package static func medium(_ date: Date, _ language: Language) -> String {
        // DateFormatter is safe to share for formatting, but not documented as such on every
        // platform: each language's formatter is used under its lock.
        formatters[language]!.withLockedValue { $0.string(from: date) }
    }

    /// "지금", "5분 전", "3시간 전", "어제", "4일 전" in the reader's language (`time.*`), as the
    /// feed's script writes times; older than a week, the medium date. `translate` is the request's.
    package static func relative(_ date: Date, now: Date, _ language: Language,
                                 translate: (String, [String: String]) -> String) -> String {
        let seconds = max(0, now.timeIntervalSince(date))
        switch seconds {
        case ..<60: return translate("time.just_now", [:])
        case ..<3600: return translate("time.minutes_ago", ["n": String(Int(seconds / 60))])
        case ..<86_400: return translate("time.hours_ago", ["n": String(Int(seconds / 3600))])
        case ..<(2 * 86_400): return translate("time.yesterday", [:])
        case ..<(7 * 86_400): return translate("time.days_ago", ["n": String(Int(seconds / 86_400))])
        default: return medium(date, language)
        }
    }

    private static let formatters: [Language: NIOLockedValueBox<DateFormatter>] = Dictionary(uniqueKeysWithValues: Language.allCases.map { language in
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language.rawValue)
        formatter.timeZone = TimeZone(identifier: "Asia/Seoul")
        formatter.dateStyle = .medium
        formatter.timeStyle = .short
        return (language, NIOLockedValueBox(formatter))
    })

    /// The calendar fields of `date` in UTC, to the second. Foundation's formatters hand ICU the
    /// moment in whole milliseconds, rounded to the nearest (…59.9996 is written as the next
    /// second), so the same arithmetic is done here, or a page would show a second or a minute
    /// earlier than the formatters did.
    private static func utcFields(_ date: Date) -> tm {
        let milliseconds = ((date.timeIntervalSinceReferenceDate + Date.timeIntervalBetween1970AndReferenceDate) * 1000).rounded()
        var seconds = time_t((milliseconds / 1000).rounded(.down))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        return fields
    }

    private static func pad(_ value: Int32, _ width: Int = 2) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
