public import Foundation
public import struct Platform.Coordinate

/// Where other people see someone who is searching for a mate, and how far away they are told
/// that person is. A person's position is never answered more precisely than the product needs
/// ("who is around here?"), so nobody can locate a searcher by asking from several points:
/// - the position is snapped to a grid of `cellMeters` squares, then moved by an offset that is
///   fixed for the whole search (from the person and the moment the search began), so people in
///   one square do not stack on one pin and the grid is not drawn on the map. Every answer —
///   the radius test, distances, the apps' `lat`/`long` — is computed from this public position,
///   so any number of questions from any points reveals the square, never the point inside it;
///   a new search in the same square gives a new offset around the same centre, so averaging
///   searches converges on the square's centre, not on the person;
/// - distances are told in steps of `distanceStepMeters`.
public enum SearchPositionBlur {
    public static let cellMeters = 200.0
    /// How far from its square's centre a public position may be, each way (less than half a square).
    public static let maxOffsetMeters = 80.0
    public static let distanceStepMeters = 100
    static let metersPerDegreeLatitude = 111_320.0

    /// The square `point` is in: its row and column, and its centre.
    public static func cell(of point: Coordinate) -> (row: Int, column: Int, center: Coordinate) {
        let rowHeight = cellMeters / metersPerDegreeLatitude
        let row = Int((point.lat / rowHeight).rounded(.down))
        let centerLat = min(90, max(-90, (Double(row) + 0.5) * rowHeight))
        // Squares of one row share their width in degrees, taken at the row's centre.
        let columnWidth = min(360, cellMeters / (metersPerDegreeLatitude * max(0.01, cos(centerLat * .pi / 180))))
        let column = Int((point.lon / columnWidth).rounded(.down))
        let centerLon = (Double(column) + 0.5) * columnWidth
        return (row, column, Coordinate(unchecked: centerLat, centerLon))
    }

    /// The position others are shown for a search by `person` at `point` that began at `since`.
    public static func publicPosition(of point: Coordinate, person: UUID, since: Date) -> Coordinate {
        let center = cell(of: point).center
        // A fixed mix of the person and the moment (SplitMix64's finaliser): not a secret — the
        // bound on what is revealed is the square — only a spread that stays put for the search.
        let halves = withUnsafeBytes(of: person.uuid) { ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
        let moment = UInt64(bitPattern: Int64((since.timeIntervalSince1970 * 1_000_000).rounded()))
        let seed = mix(halves.0 ^ mix(halves.1 ^ mix(moment)))
        func unit(_ salt: UInt64) -> Double {   // in [-1, 1)
            Double(mix(seed ^ salt) >> 11) / Double(1 << 52) - 1
        }
        let north = unit(1) * maxOffsetMeters, east = unit(2) * maxOffsetMeters
        let lat = min(90, max(-90, center.lat + north / metersPerDegreeLatitude))
        var lon = center.lon + east / (metersPerDegreeLatitude * max(0.01, cos(center.lat * .pi / 180)))
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return Coordinate(unchecked: lat, lon)
    }

    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A distance as people are told it: the nearest step, and never less than one step.
    public static func shownDistance(_ meters: Double) -> Int {
        let step = Double(distanceStepMeters)
        return Int(max(step, (meters / step).rounded() * step))
    }
}
