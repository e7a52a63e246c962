import Foundation

/// What can be wrong with a position or a map box a client sent.
public enum GeoProblem: Error, Equatable, Sendable {
    case latitudeOutOfRange
    case longitudeOutOfRange
    /// Not four comma-separated numbers.
    case malformedBox
    /// A minimum not below its maximum.
    case emptyBox
    /// Wider or taller than `BoundingBox.maxSpanDegrees`.
    case boxTooLarge
}

/// A point on the earth in degrees (WGS 84).
public struct Coordinate: Sendable, Equatable, Hashable, Codable {
    public let lat: Double
    public let lon: Double

    /// A checked coordinate: finite, latitude in −90…90, longitude in −180…180.
    public init(lat: Double, lon: Double) throws(GeoProblem) {
        guard lat.isFinite, (-90...90).contains(lat) else { throw .latitudeOutOfRange }
        guard lon.isFinite, (-180...180).contains(lon) else { throw .longitudeOutOfRange }
        self.lat = lat
        self.lon = lon
    }

    /// For values already known to be in range (stored rows, test fixtures).
    public init(unchecked lat: Double, _ lon: Double) {
        self.lat = lat
        self.lon = lon
    }

    /// Great-circle distance in meters (haversine on a sphere of the earth's mean radius); within
    /// 0.5% of the ellipsoid, which is plenty for "how far is the burger".
    public func distanceMeters(to other: Coordinate) -> Double {
        let radius = 6_371_008.8
        let dLat = (other.lat - lat) * .pi / 180, dLon = (other.lon - lon) * .pi / 180
        let a = sin(dLat / 2) * sin(dLat / 2)
            + cos(lat * .pi / 180) * cos(other.lat * .pi / 180) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * asin(min(1, sqrt(a)))
    }

    /// The smallest box that holds every point within `meters` of this one (for a first filter by
    /// index before measuring exact distances).
    public func box(radiusMeters meters: Double) -> BoundingBox {
        let dLat = meters / 111_195.0
        let dLon = meters / max(1, 111_195.0 * cos(lat * .pi / 180))
        return BoundingBox(unchecked: max(-180, lon - dLon), max(-90, lat - dLat), min(180, lon + dLon), min(90, lat + dLat))
    }
}

/// The part of the map a client shows: `minLon,minLat,maxLon,maxLat` (the order GeoJSON and
/// Leaflet's `toBBoxString()` use).
public struct BoundingBox: Sendable, Equatable {
    /// A city spans a fraction of a degree; a box of more than 10° is a country, and is refused.
    public static let maxSpanDegrees = 10.0

    public let minLon: Double
    public let minLat: Double
    public let maxLon: Double
    public let maxLat: Double

    public init(parsing text: String) throws(GeoProblem) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let minLon = parts[0], let minLat = parts[1], let maxLon = parts[2], let maxLat = parts[3] else {
            throw .malformedBox
        }
        _ = try Coordinate(lat: minLat, lon: minLon)
        _ = try Coordinate(lat: maxLat, lon: maxLon)
        guard minLon < maxLon, minLat < maxLat else { throw .emptyBox }
        guard maxLon - minLon <= Self.maxSpanDegrees, maxLat - minLat <= Self.maxSpanDegrees else { throw .boxTooLarge }
        self.init(unchecked: minLon, minLat, maxLon, maxLat)
    }

    public init(unchecked minLon: Double, _ minLat: Double, _ maxLon: Double, _ maxLat: Double) {
        self.minLon = minLon
        self.minLat = minLat
        self.maxLon = maxLon
        self.maxLat = maxLat
    }

    public func contains(_ point: Coordinate) -> Bool {
        (minLat...maxLat).contains(point.lat) && (minLon...maxLon).contains(point.lon)
    }
}

/// A grid laid over a map box, `divisions` cells a side, so clusters follow the zoom: a city-wide
/// box has city-district cells, a street-wide box street-corner cells. The same cell arithmetic
/// serves the database query (`GROUP BY` the cell) and `clusters(of:)`.
public struct ClusterGrid: Sendable, Equatable {
    public static let defaultDivisions = 8
    public let box: BoundingBox
    public let divisions: Int

    public init(box: BoundingBox, divisions: Int = ClusterGrid.defaultDivisions) {
        self.box = box
        self.divisions = max(1, divisions)
    }

    public var cellWidth: Double { (box.maxLon - box.minLon) / Double(divisions) }
    public var cellHeight: Double { (box.maxLat - box.minLat) / Double(divisions) }

    /// The cell a point inside the box falls in, as (column, row), both in 0..<divisions.
    public func cell(of point: Coordinate) -> (column: Int, row: Int) {
        let column = Int(((point.lon - box.minLon) / cellWidth).rounded(.down))
        let row = Int(((point.lat - box.minLat) / cellHeight).rounded(.down))
        return (min(max(column, 0), divisions - 1), min(max(row, 0), divisions - 1))
    }

    /// The points of the box gathered by cell: each cluster sits at the mean of its points.
    public func clusters(of points: [Coordinate]) -> [MapCluster] {
        var sums: [Int: (lat: Double, lon: Double, count: Int)] = [:]
        for point in points where box.contains(point) {
            let (column, row) = cell(of: point)
            let key = row * divisions + column
            let sum = sums[key] ?? (0, 0, 0)
            sums[key] = (sum.lat + point.lat, sum.lon + point.lon, sum.count + 1)
        }
        return sums.sorted { $0.key < $1.key }.map { _, sum in
            MapCluster(lat: sum.lat / Double(sum.count), lon: sum.lon / Double(sum.count), count: sum.count)
        }
    }
}

/// Several places shown as one bubble with their count.
public struct MapCluster: Sendable, Equatable, Codable {
    public let lat: Double
    public let lon: Double
    public let count: Int

    public init(lat: Double, lon: Double, count: Int) {
        self.lat = lat
        self.lon = lon
        self.count = count
    }
}
