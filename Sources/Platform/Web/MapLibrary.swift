import Foundation
package import Vapor

/// A stylesheet or classic script from outside `Public/`: Leaflet, served under `/vendor/leaflet`
/// from Debian's package or, failing that, from a pinned CDN address with its integrity hash.
package struct VendorResource: Sendable, Equatable {
    package let url: String
    /// The Subresource Integrity value; the browser refuses a file that does not match it.
    package let integrity: String?
}

/// Leaflet for the pages with a map, decided once at start-up: Debian's `libjs-leaflet` when
/// its files are there, else the pinned CDN copy (unless `LEAFLET_CDN=off`), else none, and the
/// pages show lists. The tile address and attribution come from `MAP_TILE_URL` and
/// `MAP_TILE_ATTRIBUTION`. Pages read `config.map` (`configValue`) and put `extras` on the page.
package struct MapLibrary: Sendable {
    /// Where a map opens without a search or a position: Seoul City Hall.
    package static let defaultCenter = (lat: 37.5665, lon: 126.9780)

    package enum Source: Sendable, Equatable {
        case local(directory: String)
        case cdn(Settings.MapSettings.CDN)
        case none
    }

    static let vendorPath = "/vendor/leaflet"

    package let source: Source
    let tileURL: String
    let tileAttribution: String
    let tileOrigin: String?

    package init(settings: Settings.MapSettings) {
        let directory = settings.leafletDirectory
        if FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("leaflet.js")) {
            source = .local(directory: directory)
        } else if let cdn = settings.leafletCDN {
            source = .cdn(cdn)
        } else {
            source = .none
        }
        tileURL = settings.tileURL
        tileAttribution = settings.tileAttribution
        tileOrigin = settings.tileOrigin
    }

    /// Leaflet's stylesheet and script for the page head (nothing when there is no library).
    package var stylesheets: [VendorResource] {
        switch source {
        case .local: return [VendorResource(url: "\(Self.vendorPath)/leaflet.css", integrity: nil)]
        case .cdn(let cdn): return [VendorResource(url: cdn.stylesheet, integrity: cdn.stylesheetIntegrity)]
        case .none: return []
        }
    }

    package var scripts: [VendorResource] {
        switch source {
        case .local: return [VendorResource(url: "\(Self.vendorPath)/leaflet.js", integrity: nil)]
        case .cdn(let cdn): return [VendorResource(url: cdn.script, integrity: cdn.scriptIntegrity)]
        case .none: return []
        }
    }

    /// The addresses outside this site a map page's policy must allow scripts and stylesheets from.
    var externalScripts: [String] { scripts.map(\.url).filter { $0.hasPrefix("https://") } }
    var externalStylesheets: [String] { stylesheets.map(\.url).filter { $0.hasPrefix("https://") } }

    /// `config.map` for the page's scripts.
    package func configValue(center: (lat: Double, lon: Double), zoom: Int, extra: [String: Any] = [:]) -> [String: Any] {
        var value: [String: Any] = [
            "tileURL": tileURL, "attribution": tileAttribution, "leaflet": source != .none,
            "center": [center.lat, center.lon], "zoom": zoom,
        ]
        for (key, item) in extra { value[key] = item }
        return value
    }
}

extension Application {
    private struct MapLibraryKey: StorageKey { typealias Value = MapLibrary }

    package var mapLibrary: MapLibrary {
        get { configured(MapLibraryKey.self) }
        set { storage[MapLibraryKey.self] = newValue }
    }
}

/// `/vendor/leaflet/…`: Debian's Leaflet files (the script, its stylesheet and the images the
/// stylesheet names), when that is where the map library comes from. Nothing else is reachable:
/// a file name is lower-case letters, digits, dots and dashes, in the folder or its `images/`.
package struct VendorFiles: RouteCollection {
    package func boot(routes: any RoutesBuilder) throws {
        let leaflet = routes.grouped("vendor", "leaflet")
        leaflet.get(":file") { try await serve($0, folder: nil) }
        leaflet.get("images", ":file") { try await serve($0, folder: "images") }
    }

    package func serve(_ req: Request, folder: String?) async throws -> Response {
        guard case .local(let directory) = req.application.mapLibrary.source else { throw AppError.notFound("not_found") }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789.-")
        guard let file = req.parameters.get("file"), !file.hasPrefix("."), file.unicodeScalars.allSatisfy(allowed.contains),
              [".js", ".css", ".png"].contains(where: file.hasSuffix)
        else { throw AppError.notFound("not_found") }
        let path = ([directory] + [folder, file].compactMap { $0 }).joined(separator: "/")
        guard FileManager.default.fileExists(atPath: path) else { throw AppError.notFound("not_found") }
        let response = try await req.fileio.asyncStreamFile(at: path)
        response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=86400")
        return response
    }

    package init() {}
}
