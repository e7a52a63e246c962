package import Foundation

/// Times as JavaScript's `toISOString()` writes them, the way both seed apps' servers (Node) sent
/// them: `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC with exactly three fractional digits. The apps parse
/// with that exact pattern and sort by comparing the strings, so `AppJSON`'s whole seconds will not do.
package enum JavaScriptDate {
    /// Written with integer arithmetic (days to a civil date, Howard Hinnant's `civil_from_days`):
    /// lists of posts carry thousands of times, and `Calendar` with `String(format:)` was most of
    /// such a list's cost on Linux.
    package static func string(_ date: Date) -> String {
        let milliseconds = millisecond(of: date)
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let inDay = milliseconds - days * 86_400_000
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (0...9_999).contains(year) else { return String(format: "%04lld-%02lld-%02lldT00:00:00.000Z", year, month, day) }
        var text = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int64, at offset: Int, digits: Int) {
            var value = value
            for position in stride(from: offset + digits - 1, through: offset, by: -1) {
                text[position] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, at: 0, digits: 4)
        put(month, at: 5, digits: 2)
        put(day, at: 8, digits: 2)
        put(inDay / 3_600_000, at: 11, digits: 2)
        put(inDay / 60_000 % 60, at: 14, digits: 2)
        put(inDay / 1_000 % 60, at: 17, digits: 2)
        put(inDay % 1_000, at: 20, digits: 3)
        for (offset, character) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z")] as [(Int, Unicode.Scalar)] {
            text[offset] = UInt8(ascii: character)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The millisecond a time falls in, as the apps see it. Counted from whole microseconds (what
    /// the database keeps), so a time stored at .123000 s is never read as .122999….
    package static func millisecond(of date: Date) -> Int64 {
        let microseconds = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard microseconds.isFinite, abs(microseconds) < 9e18 else { return 0 }
        let whole = Int64(microseconds)
        return whole >= 0 ? whole / 1000 : (whole - 999) / 1000
    }
}
