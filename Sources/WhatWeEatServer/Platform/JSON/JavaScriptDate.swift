import Foundation

/// Times as JavaScript's `toISOString()` writes them, the way both seed apps' servers (Node) sent
/// them: `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC with exactly three fractional digits. The apps parse
/// with that exact pattern and sort by comparing the strings, so `AppJSON`'s whole seconds will not do.
enum JavaScriptDate {
    static func string(_ date: Date) -> String {
        let milliseconds = millisecond(of: date)
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let whole = Date(timeIntervalSince1970: TimeInterval(seconds))
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
        let fraction = Int(milliseconds - seconds * 1000)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.year ?? 0, parts.month ?? 1, parts.day ?? 1,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, fraction)
    }

    /// The millisecond a time falls in, as the apps see it. Counted from whole microseconds (what
    /// the database keeps), so a time stored at .123000 s is never read as .122999….
    static func millisecond(of date: Date) -> Int64 {
        let microseconds = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard microseconds.isFinite, abs(microseconds) < 9e18 else { return 0 }
        let whole = Int64(microseconds)
        return whole >= 0 ? whole / 1000 : (whole - 999) / 1000
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }()
}
