import Fluent
import Platform
import Vapor

/// Catalog administration: adding, changing and retiring menus, with the catalog's rules; games
/// on every instance see each change at once (`MenuStore` announces it, the catalog follows).
extension MenuGameService {
    var menuStore: MenuStore { MenuStore(database: database, application: application) }

    /// A menu on offer (404 for an unknown or retired one).
    func menu(slug: String) async throws -> Menu {
        guard let row = try await menuStore.activeRow(slug: slug) else { throw AppError.notFound("menu_not_found") }
        return row.menu
    }

    /// Adds a menu, or brings a retired one back with these fields (its id stays with past results).
    func addMenu(_ menu: Menu, imageURL: String?, by operator: UUID?) async throws -> Menu {
        try Self.validate(menu, imageURL: imageURL)
        let before = try await menuStore.allRows().first { $0.slug == menu.id }
        try await menuStore.add(menu, imageURL: imageURL) { added in
            audit("menu_game.menu.add", slug: added.id, before: before.map { Self.fields($0.menu, retired: true) }, after: Self.fields(added), by: `operator`)
        }
        return menu
    }

    /// Changes a menu on offer (404 for a retired one); an empty `imageURL` goes back to the card.
    func changeMenu(slug: String, imageURL: String?, by operator: UUID?, _ change: (inout Menu) throws -> Void) async throws -> Menu {
        let before = try await menuStore.activeRow(slug: slug)
        return try await menuStore.change(slug: slug, imageURL: imageURL, audit: { changed in
            audit("menu_game.menu.change", slug: slug, before: before.map { Self.fields($0.menu) }, after: Self.fields(changed), by: `operator`)
        }) { menu in
            try change(&menu)
            try Self.validate(menu, imageURL: imageURL)
        }
    }

    /// Retires a menu: it leaves games and lists, past results that named it stay intact, and it
    /// is not found (404) until it is added again.
    func retireMenu(slug: String, by operator: UUID?) async throws {
        let before = try await menuStore.activeRow(slug: slug)
        try await menuStore.retire(slug: slug, at: environment.now()) { _ in
            audit("menu_game.menu.retire", slug: slug, before: before.map { Self.fields($0.menu) }, after: nil, by: `operator`)
        }
    }

    /// What the audit log keeps of a menu: its names and emoji.
    private static func fields(_ menu: Menu, retired: Bool = false) -> [String: String] {
        var fields = ["ko": menu.name.ko, "en": menu.name.en, "ja": menu.name.ja, "emoji": menu.emoji]
        if retired { fields["retired"] = "true" }
        return fields
    }

    private func audit(_ action: String, slug: String, before: [String: String]?, after: [String: String]?, by operator: UUID?) -> AuditEntry {
        AuditEntry(actorID: `operator`, action: action, subjectType: "menu", subjectID: slug, before: before, after: after, at: environment.now())
    }

    package static func validate(_ menu: Menu, imageURL: String?) throws {
        guard menu.id.count <= 60, !menu.id.isEmpty,
              menu.id.allSatisfy({ ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }),
              !menu.id.hasPrefix("-")
        else { throw AppError.invalid("invalid_menu_id") }
        for name in [menu.name.ko, menu.name.en, menu.name.ja] {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, name.fits(characters: 40, bytes: 160), !trimmed.contains("<") else { throw AppError.invalid("invalid_menu_name") }
        }
        // Two pictures as people see them; openapi.yaml allows 16 code points (🧑‍🍳 is three).
        guard !menu.emoji.isEmpty, menu.emoji.fits(characters: 2, bytes: 32, codePoints: 16) else { throw AppError.invalid("invalid_emoji") }
        guard !menu.nations.isEmpty else { throw AppError.invalid("missing_nation") }
        if let imageURL, !imageURL.isEmpty {
            guard imageURL.hasPrefix("https://") || imageURL.hasPrefix("http://") || imageURL.hasPrefix("/"), imageURL.utf8.count <= 500,
                  !imageURL.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control || "\"'<>\\".unicodeScalars.contains($0) })
            else {
                throw AppError.invalid("invalid_image_url")
            }
        }
    }
}
