import Foundation

extension Calendar {
    /// The Gregorian calendar in UTC: days that are the same for every instance and every reader
    /// (upload budgets, wire dates, request signatures).
    package static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()
}
