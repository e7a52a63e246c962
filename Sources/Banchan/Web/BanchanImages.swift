import Fluent
import Media
import Platform
package import Vapor

/// `/images/banchan/{hash}/{main|thumb-N|detail-N}.svg`: generated artwork for every dish — the
/// list picture, the detail page's paging thumbnails, and one image per detail paragraph — and the
/// same drawn ahead as raster files (`main|card|thumb-N.jpg`, `detail-N.png`) for clients without SVG.
package struct BanchanImages: RouteCollection {
    /// Absolute image URLs, as the shipped app and the API hand them out.
    package struct URLs: Sendable {
        package let publicURL: String

        package func main(_ hash: String) -> String { "\(publicURL)/images/banchan/\(hash)/main.svg" }
        package func thumbs(_ dish: Dish) -> [String] { (1...max(1, dish.thumbCount)).map { "\(publicURL)/images/banchan/\(dish.hash)/thumb-\($0).svg" } }
        package func details(_ dish: Dish) -> [String] { dish.detailSections.indices.map { "\(publicURL)/images/banchan/\(dish.hash)/detail-\($0 + 1).svg" } }

        // The same pictures as raster files, for clients that cannot draw SVG: the shipped 배민찬
        // app decodes images with `UIImage(data:)`, which returns nil for SVG.
        package func rasterMain(_ hash: String) -> String { "\(publicURL)/images/banchan/\(hash)/main.jpg" }
        package func rasterThumbs(_ dish: Dish) -> [String] { (1...max(1, dish.thumbCount)).map { "\(publicURL)/images/banchan/\(dish.hash)/thumb-\($0).jpg" } }
        package func rasterDetails(_ dish: Dish) -> [String] { dish.detailSections.indices.map { "\(publicURL)/images/banchan/\(dish.hash)/detail-\($0 + 1).png" } }

        package init(publicURL: String) {
            self.publicURL = publicURL
        }
    }

    package func boot(routes: any RoutesBuilder) throws {
        routes.get("images", "banchan", ":hash", ":file", use: image)
    }

    /// The drawn pictures (`Resources/catalogs/draw_dish_photos.py`): `main`, `thumb-N` and the link
    /// preview's `card` (1200×630) as JPEG, `detail-N` as PNG, for what cannot draw SVG (messengers'
    /// previews, the shipped app).
    package static func cardPath(_ hash: String) -> String { "/images/banchan/\(hash)/card.jpg" }

    /// The raster file for `file` of `dish` (`main.jpg`, `card.jpg`, `thumb-N.jpg`, `detail-N.png`)
    /// and its type: the drawn one, else the shop's placeholder (a dish an operator added after the
    /// drawing has none). Nil for a name the dish does not have.
    static func rasterFile(_ dish: Dish, _ file: String, resources: String) -> (path: String, type: HTTPMediaType)? {
        let folder = resources + "catalogs/banchan-photos/"
        let drawn: (name: String, type: HTTPMediaType)
        if file == "main.jpg" || file == "card.jpg" {
            drawn = (String(file.dropLast(4)), .jpeg)
        } else if let match = file.wholeMatch(of: /thumb-([1-9][0-9]?)\.jpg/), let index = Int(match.1), index <= max(1, dish.thumbCount) {
            drawn = ("thumb-\(index)", .jpeg)
        } else if let match = file.wholeMatch(of: /detail-([1-9][0-9]?)\.png/), let index = Int(match.1), index <= dish.detailSections.count {
            drawn = ("detail-\(index)", .png)
        } else {
            return nil
        }
        let path = folder + "\(dish.hash)_\(drawn.name)." + (drawn.type == .png ? "png" : "jpg")
        // Hashes are letters and digits (the catalog's rule), so the path stays in the folder.
        if dish.hash.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }), FileManager.default.fileExists(atPath: path) {
            return (path, drawn.type)
        }
        return (folder + "_placeholder_main.jpg", .jpeg)
    }

    package func image(req: Request) async throws -> Response {
        guard let hash = req.parameters.get("hash"), let file = req.parameters.get("file"),
              let row = try await req.application.banchanStore.dishRow(hash: hash) else { throw AppError.notFound("dish_not_found") }
        let dish = row.dish
        // The operator's photo stands for the dish's pictures (the list's, the thumbnails, the
        // card), under the same addresses; asked again each time (`no-cache`, its key as the
        // ETag), so a photo replaced shows at once. The detail paragraphs stay drawn.
        let isPicture = Self.isPicture(file, thumbCount: dish.thumbCount)
        if let key = row.photoKey, isPicture, let photo = try await req.storedFile(key) {
            photo.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
            return photo
        }
        // A drawn picture may give way to a photo at any time: kept five minutes, not a day, so
        // a photo the operator puts up reaches browsers that saw the drawing soon.
        let kept = isPicture ? "public, max-age=300" : "public, max-age=86400"
        if file.hasSuffix(".jpg") || file.hasSuffix(".png") {
            guard let raster = Self.rasterFile(dish, file, resources: req.application.directory.resourcesDirectory) else {
                throw AppError.notFound("dish_not_found")
            }
            let response = try await req.fileio.asyncStreamFile(at: raster.path, mediaType: raster.type)
            response.headers.replaceOrAdd(name: .cacheControl, value: kept)
            return response
        }
        guard file.hasSuffix(".svg") else { throw AppError.notFound("dish_not_found") }
        let name = String(file.dropLast(4))
        let svg: String
        if name == "main" {
            svg = Self.picture(dish, variant: 0)
        } else if name.hasPrefix("thumb-"), let index = Int(name.dropFirst(6)), (1...max(1, dish.thumbCount)).contains(index) {
            svg = Self.picture(dish, variant: index)
        } else if name.hasPrefix("detail-"), let index = Int(name.dropFirst(7)), (1...dish.detailSections.count).contains(index) {
            svg = Self.detail(dish, paragraph: dish.detailSections[index - 1], index: index)
        } else {
            throw AppError.notFound("dish_not_found")
        }
        return .svg(svg, cacheControl: kept)
    }

    /// `main`, `thumb-N` (any of the dish's) and `card`, in any of their formats.
    static func isPicture(_ file: String, thumbCount: Int) -> Bool {
        let name = file.split(separator: ".").first.map(String.init) ?? ""
        if name == "main" || name == "card" { return true }
        guard name.hasPrefix("thumb-"), let index = Int(name.dropFirst(6)) else { return false }
        return (1...max(1, thumbCount)).contains(index)
    }

    /// The dish's emoji on its colour; each thumbnail frames it differently (closer, turned).
    package static func picture(_ dish: Dish, variant: Int) -> String {
        let scales = [1.0, 1.25, 0.85, 1.45, 1.1, 0.95, 1.3, 1.05, 1.2]
        let turns = [0, -12, 10, -6, 16, -18, 6, -3, 12]
        let scale = scales[variant % scales.count], turn = turns[variant % turns.count]
        let fontSize = Int(190 * scale)
        return """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 600" role="img" aria-label="\(Markup.escape(dish.title))">\
        <rect width="600" height="600" fill="\(dish.color)"/>\
        <circle cx="300" cy="318" r="\(Int(205 * min(scale, 1.2)))" fill="#ffffff" fill-opacity="0.55"/>\
        <circle cx="300" cy="318" r="\(Int(165 * min(scale, 1.2)))" fill="#ffffff" fill-opacity="0.5"/>\
        <text x="300" y="300" font-size="\(fontSize)" text-anchor="middle" dominant-baseline="central" \
        transform="rotate(\(turn) 300 300)" font-family="Noto Color Emoji, Apple Color Emoji, Segoe UI Emoji, sans-serif">\(Markup.escape(dish.emoji))</text></svg>
        """
    }

    /// A detail paragraph set as a card, wrapped to the width, with the dish's emoji.
    package static func detail(_ dish: Dish, paragraph: String, index: Int) -> String {
        let lines = wrap(paragraph, width: 21)
        let height = 260 + lines.count * 52
        let text = lines.enumerated().map { offset, line in
            "<text x=\"60\" y=\"\(230 + offset * 52)\" font-size=\"30\" fill=\"#1f1d1a\">\(Markup.escape(line))</text>"
        }.joined()
        return """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 720 \(height)" role="img" aria-label="\(Markup.escape(paragraph))" \
        font-family="Noto Sans CJK KR, Noto Sans KR, Apple SD Gothic Neo, sans-serif">\
        <rect width="720" height="\(height)" fill="#fffaf5"/>\
        <rect x="24" y="24" width="672" height="\(height - 48)" rx="28" fill="\(dish.color)" fill-opacity="0.45"/>\
        <text x="60" y="120" font-size="64" font-family="Noto Color Emoji, Apple Color Emoji, sans-serif">\(Markup.escape(dish.emoji))</text>\
        <text x="150" y="112" font-size="30" font-weight="700" fill="#9a3412">POINT \(index)</text>\(text)</svg>
        """
    }

    /// Splits text into lines of at most `width` characters, at spaces where possible.
    package static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = [], current = ""
        for word in text.split(separator: " ") {
            var piece = String(word)
            while piece.count > width {
                if !current.isEmpty { lines.append(current); current = "" }
                lines.append(String(piece.prefix(width)))
                piece = String(piece.dropFirst(width))
            }
            if current.isEmpty { current = piece }
            else if current.count + 1 + piece.count <= width { current += " " + piece }
            else { lines.append(current); current = piece }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
