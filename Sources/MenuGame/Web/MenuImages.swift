import Platform
package import Vapor

/// `/images/menus/{id}.svg`: a card with the menu's emoji on a colour picked from its id, the
/// image of every menu that has no other. Cached by browsers for a day.
package struct MenuImages: RouteCollection {
    /// Warm backgrounds; each keeps a large emoji readable.
    static let palette = ["#FDE68A", "#FECACA", "#BBF7D0", "#BFDBFE", "#FBCFE8", "#DDD6FE", "#FED7AA", "#A7F3D0", "#FEF3C7", "#E9D5FF"]

    package func boot(routes: any RoutesBuilder) throws {
        routes.get("images", "menus", ":file", use: image)
    }

    /// `{slug}.svg`, or `{slug}.jpg`: the link-preview card of the menu's emoji, drawn ahead
    /// (`Resources/catalogs/draw_menu_cards.py`; messengers draw no SVG).
    func image(req: Request) async throws -> Response {
        guard let file = req.parameters.get("file"), file.hasSuffix(".svg") || file.hasSuffix(".jpg") else { throw AppError.notFound("menu_not_found") }
        let slug = String(file.dropLast(4))
        guard let menu = req.application.menuCatalog.snapshot.menus.first(where: { $0.id == slug }) else {
            throw AppError.notFound("menu_not_found")
        }
        guard file.hasSuffix(".jpg") else { return .svg(Self.svg(for: menu), cacheControl: "public, max-age=86400") }
        let resources = req.application.directory.resourcesDirectory
        var card = Self.cardFile(menu, resources: resources)
        // A menu an operator added with an emoji no card was drawn for gets the generic 🥢 card:
        // the 우리뭐먹지 app waits on its picture (a missing one spins for good).
        if !FileManager.default.fileExists(atPath: card) { card = resources + "catalogs/menu-cards/" + Self.genericCardFile }
        let response = try await req.fileio.asyncStreamFile(at: card, mediaType: .jpeg)
        response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=86400")
        return response
    }

    /// The card of a menu whose emoji has none drawn (`draw_menu_cards.py`'s `GENERIC`, 🥢).
    static let genericCardFile = "1f962.jpg"

    /// The card's address on this site (1200×630).
    static func cardPath(_ menu: Menu) -> String { "/images/menus/\(menu.id).jpg" }

    /// `menu-cards/<code points in hex, joined by ->.jpg`.
    package static func cardFile(_ menu: Menu, resources: String) -> String {
        resources + "catalogs/menu-cards/" + menu.emoji.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: "-") + ".jpg"
    }

    static func svg(for menu: Menu) -> String {
        let hash = menu.id.unicodeScalars.reduce(UInt32(2166136261)) { ($0 ^ $1.value) &* 16777619 }
        let background = palette[Int(hash % UInt32(palette.count))]
        let label = Markup.escape(menu.name.ko), emoji = Markup.escape(menu.emoji)
        return """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 400" role="img" aria-label="\(label)">\
        <rect width="400" height="400" rx="48" fill="\(background)"/>\
        <circle cx="200" cy="200" r="130" fill="#ffffff" fill-opacity="0.45"/>\
        <text x="200" y="200" font-size="150" text-anchor="middle" dominant-baseline="central" \
        font-family="Noto Color Emoji, Apple Color Emoji, Segoe UI Emoji, sans-serif">\(emoji)</text></svg>
        """
    }
}
