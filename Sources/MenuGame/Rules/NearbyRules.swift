public import Foundation
public import struct Platform.Coordinate

/// Where to eat a menu near a person (issue 60): which menus our burger map answers first, and the
/// squares Kakao's answers are kept by.
public enum NearbyRules {
    /// How far Kakao is asked to look, in metres.
    public static let searchRadiusMeters = 2_000
    /// Kakao look-ups a network may make in a minute: a class behind one address, each asking
    /// for a menu of their own (answers already kept cost none).
    public static let lookupsPerNetworkPerMinute = 120
    /// How many places a list shows.
    public static let listSize = 10
    /// A square's side in degrees of latitude (about 500 m); longitude's is widened by the
    /// latitude's cosine so the square is about as wide as it is tall.
    public static let squareDegrees = 0.0045

    /// Whether a menu is a burger, so "햄버거", "버거", "수제버거" and "burger" reach our burger map
    /// first (the words in its Korean or English name, or its slug).
    public static func isBurger(ko: String, en: String, slug: String) -> Bool {
        ko.contains("버거") || en.lowercased().contains("burger") || slug.lowercased().contains("burger")
    }

    /// The ~500 m square a position falls in, as a key, and the square's middle (where Kakao is
    /// asked from: everyone in the square shares one answer).
    public static func square(of point: Coordinate) -> (key: String, middle: Coordinate) {
        let latStep = squareDegrees
        let lonStep = squareDegrees / max(0.2, cos(point.lat * .pi / 180))
        let row = (point.lat / latStep).rounded(.down), column = (point.lon / lonStep).rounded(.down)
        let middle = Coordinate(unchecked: min(90, (row + 0.5) * latStep), max(-180, min(180, (column + 0.5) * lonStep)))
        return ("\(Int(row)):\(Int(column))", middle)
    }
}
