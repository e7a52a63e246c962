import Fluent
import Platform
package import Vapor

/// `/images/burger-map/photos/{id}.svg`: the generated pictures of the seeded catalog's reviews
/// (uploaded photos are files under `/uploads`). Each photo of a review frames its place's emoji
/// differently, like a second shot from another angle.
package struct BurgerMapImages: RouteCollection {
    package func boot(routes: any RoutesBuilder) throws {
        routes.get("images", "burger-map", "photos", ":file", use: photo)
    }

    /// `{id}.svg`, or `{id}.jpg` where the picture was drawn ahead (link previews, which must be raster).
    package func photo(req: Request) async throws -> Response {
        guard let file = req.parameters.get("file"), file.hasSuffix(".svg") || file.hasSuffix(".jpg"),
              let id = UUID(uuidString: String(file.dropLast(4))),
              let photo = try await BurgerMapStore(database: req.db, environment: req.application.burgerMapEnvironment).photo(id), photo.artwork != nil
        else { throw AppError.notFound("photo_not_found") }
        guard file.hasSuffix(".jpg") else { return picture(of: photo) }
        guard let jpeg = Self.jpeg(of: photo, resources: req.application.directory.resourcesDirectory) else { throw AppError.notFound("photo_not_found") }
        let response = try await req.fileio.asyncStreamFile(at: jpeg, mediaType: .jpeg)
        response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=86400")
        return response
    }

    /// A raster address for a photo's (for a link preview): an uploaded JPEG or PNG as it is, a
    /// drawn picture as its JPEG; nil for other formats.
    package static func rasterURL(ofPhotoURL url: String) -> String? {
        let lowered = url.lowercased()
        if lowered.hasPrefix("/images/burger-map/photos/"), lowered.hasSuffix(".svg") { return String(url.dropLast(4)) + ".jpg" }
        return [".jpg", ".jpeg", ".png"].contains(where: { lowered.hasSuffix($0) }) ? url : nil
    }

    /// A seeded photo's drawing as a JPEG, for the LookForRealBurger app, whose image loader cannot
    /// draw SVG: drawn ahead from the catalog (`Resources/catalogs/draw_burger_photos.py`, the same
    /// picture as the SVG); nil when none was drawn for this artwork.
    package static func jpeg(of photo: PhotoRow, resources: String) -> String? {
        let parts = (photo.artwork ?? "").split(separator: "|", maxSplits: 1).map(String.init)
        guard parts.count == 2, isColor(parts[1]) else { return nil }
        let emoji = parts[0].unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: "-")
        let name = "\(emoji)_\(parts[1].dropFirst().uppercased())_\(photo.position % 4).jpg"
        let path = resources + "catalogs/burger-photos/" + name
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// A seeded photo's drawing (its `artwork`).
    package func picture(of photo: PhotoRow) -> Response {
        let parts = (photo.artwork ?? "").split(separator: "|", maxSplits: 1).map(String.init)
        let emoji = parts.first ?? "🍔"
        let color = parts.count > 1 && Self.isColor(parts[1]) ? parts[1] : "#FDE68A"
        return .svg(Self.picture(emoji: emoji, color: color, variant: photo.position, width: photo.width, height: photo.height),
                    cacheControl: "public, max-age=86400")
    }

    static func isColor(_ text: String) -> Bool {
        text.count == 7 && text.first == "#" && text.dropFirst().allSatisfy(\.isHexDigit)
    }

    package static func picture(emoji: String, color: String, variant: Int, width: Int, height: Int) -> String {
        let turns = [0, -14, 11, -5]
        let scales = [1.0, 1.3, 0.8, 1.15]
        let turn = turns[variant % turns.count], scale = scales[variant % scales.count]
        let cx = width / 2, cy = height / 2
        let size = Int(Double(min(width, height)) * 0.42 * scale)
        return """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(width) \(height)" role="img" aria-label="\(Markup.escape(emoji))">\
        <rect width="\(width)" height="\(height)" fill="\(color)"/>\
        <rect x="0" y="\(height * 3 / 4)" width="\(width)" height="\(height / 4)" fill="#000000" fill-opacity="0.06"/>\
        <ellipse cx="\(cx)" cy="\(cy + size / 2)" rx="\(size * 3 / 4)" ry="\(size / 6)" fill="#000000" fill-opacity="0.12"/>\
        <text x="\(cx)" y="\(cy)" font-size="\(size)" text-anchor="middle" dominant-baseline="central" \
        transform="rotate(\(turn) \(cx) \(cy))" font-family="Noto Color Emoji, Apple Color Emoji, Segoe UI Emoji, sans-serif">\(Markup.escape(emoji))</text></svg>
        """
    }

    package init() {}
}
