package import Foundation

extension Calendar {
    /// The Gregorian calendar in UTC: days that are the same for every instance and every reader
    /// (upload budgets, wire dates, request signatures).
    package static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()
}

extension Calendar {
    /// The Gregorian calendar in Korea's time (UTC+9, no daylight saving): the shop's days (order
    /// numbers, 새벽배송 cut-offs) and the console's "today".
    package static let korea: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Seoul") ?? TimeZone(secondsFromGMT: 9 * 3600) ?? calendar.timeZone
        return calendar
    }()
}
