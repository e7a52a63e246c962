import Fluent
import Platform
import Vapor

/// Catalog administration: adding, changing and retiring menus, with the catalog's rules; games
/// see every change at once (the catalog is reloaded).
extension MenuGameService {
    /// A menu on offer (404 for an unknown or retired one).
    func menuRecord(slug: String) async throws -> MenuRecord {
        guard let record = try await MenuRecord.query(on: database).filter(\.$slug == slug).first(), record.retiredAt == nil else {
            throw AppError.notFound("menu_not_found")
        }
        return record
    }

    /// Adds a menu, or brings a retired one back with these fields (its id stays with past results).
    func addMenu(_ menu: Menu, imageURL: String?) async throws -> Menu {
        try Self.validate(menu, imageURL: imageURL)
        let record: MenuRecord
        if let existing = try await MenuRecord.query(on: database).filter(\.$slug == menu.id).first() {
            guard existing.retiredAt != nil else { throw AppError.conflict("menu_exists") }
            record = existing
            record.apply(menu)
            record.imageURL = imageURL.flatMap { $0.isEmpty ? nil : $0 }
            record.retiredAt = nil
        } else {
            record = MenuRecord(menu, imageURL: imageURL)
        }
        record.editedByAdmin = true
        do {
            try await record.save(on: database)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("menu_exists")
        }
        try await menuCatalog.reload(from: database)
        return menu
    }

    /// Changes a menu on offer (404 for a retired one); an empty `imageURL` goes back to the card.
    func changeMenu(slug: String, imageURL: String?, _ change: (inout Menu) throws -> Void) async throws -> Menu {
        let record = try await menuRecord(slug: slug)
        var menu = record.menu
        try change(&menu)
        try Self.validate(menu, imageURL: imageURL)
        record.apply(menu)
        if let imageURL { record.imageURL = imageURL.isEmpty ? nil : imageURL }
        record.editedByAdmin = true
        try await record.save(on: database)
        try await menuCatalog.reload(from: database)
        return menu
    }

    /// Retires a menu: it leaves games and lists, past results that named it stay intact, and it
    /// is not found (404) until it is added again.
    func retireMenu(slug: String) async throws {
        let record = try await menuRecord(slug: slug)
        record.retiredAt = Date()
        record.editedByAdmin = true
        try await record.save(on: database)
        try await menuCatalog.reload(from: database)
    }

    package static func validate(_ menu: Menu, imageURL: String?) throws {
        guard menu.id.count <= 60, !menu.id.isEmpty,
              menu.id.allSatisfy({ ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }),
              !menu.id.hasPrefix("-")
        else { throw AppError.invalid("invalid_menu_id") }
        for name in [menu.name.ko, menu.name.en, menu.name.ja] {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.fits(characters: 40, bytes: 160), !trimmed.contains("<") else { throw AppError.invalid("invalid_menu_name") }
        }
        guard !menu.emoji.isEmpty, menu.emoji.fits(characters: 2, bytes: 32) else { throw AppError.invalid("invalid_emoji") }
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
