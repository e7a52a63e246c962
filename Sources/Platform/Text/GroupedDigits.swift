/// Whole numbers with a comma every three digits (`12,345`), as prices are written on every page
/// in all three languages. Written out rather than through `NumberFormatter`, which pages made
/// one of per price.
package enum GroupedDigits {
    package static func format(_ number: Int) -> String {
        let digits = String(number.magnitude)  // abs(Int.min) would overflow
        var grouped = ""
        grouped.reserveCapacity(digits.utf8.count + digits.utf8.count / 3 + 1)
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return (number < 0 ? "-" : "") + grouped
    }
}
