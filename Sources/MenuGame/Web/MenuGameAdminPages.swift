import Accounts
import Foundation
import Platform
import Plot
import Vapor

/// The menu game's menus in the console's Catalog tab (`/admin/catalog/menus`, administrators
/// only): every menu, retired ones too; one menu's form changes its names and emoji, takes it out
/// of games, or (for a retired one) saves and brings it back. The API's rules and audit entries apply.
struct MenuGameAdminPages: RouteCollection {
    static let menus: PagePath = "/admin/catalog/menus"
    static let menu: PagePath1 = "/admin/catalog/menus/:menu"
    static let retire: PagePath1 = "/admin/catalog/menus/:menu/retire"

    func boot(routes: any RoutesBuilder) throws {
        let admin = routes.grouped(AdministratorsOnly())
        admin.get(Self.menus, use: list)
        admin.get(Self.menu, use: edit)
        admin.post(Self.menu, use: change)
        admin.post(Self.retire, use: retire)
    }

    func list(req: Request) async throws -> Response {
        // Every menu, retired ones too, read only when the catalog has changed since this page was made.
        try await AdminConsole.keptPage(req, tab: .catalog, version: req.application.menuCatalog.version) {
            let rows = try await req.menuGame.menuStore.allRows()
            let main: Node<HTML.BodyContext> = .group(
                AdminConsole.catalogNav(req, current: "menus"),
                .h1(.text(req.t("admin.catalog.menus"))),
                .p(.class("muted"), .text(req.t("admin.menus.lead", ["count": String(rows.filter { $0.retiredAt == nil }.count)]))),
                .section(.class("card"), .ul(.class("catalog-list"), .id("menus"), .forEach(rows) { row in
                    .li(.a(
                        .class(row.retiredAt == nil ? "catalog-row" : "catalog-row retired"), .href(Self.menu(row.slug)), .id("menu-\(row.slug)"),
                        .span(.class("catalog-title"), .text("\(row.emoji) \(row.menu.name[req.language])")),
                        .span(.class("catalog-price"), .text(row.slug)),
                        row.retiredAt == nil ? .empty : .span(.class("badge muted"), .text(req.t("admin.menus.retired")))
                    ))
                }))
            )
            return (req.t("admin.catalog.menus"), main)
        }
    }

    private func row(_ req: Request) async throws -> MenuStore.Row {
        let slug = req.parameters.get("menu") ?? ""
        guard let row = try await req.menuGame.menuStore.allRows().first(where: { $0.slug == slug }) else { throw AppError.notFound("menu_not_found") }
        return row
    }

    struct MenuForm: Content {
        var ko: String?
        var en: String?
        var ja: String?
        var emoji: String?
    }

    func edit(req: Request) async throws -> Response {
        try await editPage(req, form: nil, error: nil)
    }

    private func editPage(_ req: Request, form: MenuForm?, error: AppError?) async throws -> Response {
        let row = try await row(req)
        let retired = row.retiredAt != nil
        let field = { (name: String, key: String, value: String) -> Node<HTML.FormContext> in
            .div(.class("field"),
                 .label(.for("menu-\(name)"), .text(req.t(key))),
                 .input(.type(.text), .id("menu-\(name)"), .name(name), .value(value), .attribute(named: "maxlength", value: name == "emoji" ? "8" : "40")))
        }
        let main: Node<HTML.BodyContext> = .group(
            AdminConsole.catalogNav(req, current: "menus"),
            .p(.a(.href(Self.menus()), .text("← " + req.t("admin.catalog.menus")))),
            .h1(.id("menu-title"), .text("\(row.emoji) \(row.menu.name[req.language])")),
            Layout.formError(req, error),
            retired ? .p(.class("caution"), .id("menu-retired"), .text(req.t("admin.menus.retired_note"))) : .empty,
            .section(
                .class("card stack"),
                .form(
                    .action(Self.menu(row.slug)), .method(.post), .class("stack"), .id("menu-form"),
                    Layout.csrfField(req),
                    field("ko", "admin.menus.name_ko", form?.ko ?? row.nameKo),
                    field("en", "admin.menus.name_en", form?.en ?? row.nameEn),
                    field("ja", "admin.menus.name_ja", form?.ja ?? row.nameJa),
                    field("emoji", "admin.menus.emoji", form?.emoji ?? row.emoji),
                    .button(.type(.submit), .class("button primary wide"), .id("save-menu"),
                            .text(req.t(retired ? "admin.catalog.save_and_restore" : "admin.catalog.save")))
                )
            ),
            retired ? .empty : .form(
                .action(Self.retire(row.slug)), .method(.post), Layout.csrfField(req),
                .button(.type(.submit), .class("button danger wide"), .id("retire-menu"), .text(req.t("admin.menus.retire")))
            )
        )
        return AdminConsole.page(req, tab: .catalog, title: row.nameKo, status: error?.status ?? .ok, main: main)
    }

    /// Saves the names and emoji; a retired menu comes back with them.
    func change(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let form = try req.content.decode(MenuForm.self)
        let row = try await row(req)
        return try await req.submitForm {
            let apply = { (menu: inout Menu) in
                menu.name = Menu.Names(ko: form.ko ?? menu.name.ko, en: form.en ?? menu.name.en, ja: form.ja ?? menu.name.ja)
                if let emoji = form.emoji { menu.emoji = emoji.trimmingCharacters(in: .whitespaces) }
            }
            if row.retiredAt != nil {
                var menu = row.menu
                apply(&menu)
                _ = try await req.menuGame.addMenu(menu, imageURL: row.imageURL, by: admin.id)
            } else {
                _ = try await req.menuGame.changeMenu(slug: row.slug, imageURL: row.imageURL, by: admin.id, apply)
            }
            return Layout.redirect(to: Self.menus() + "#menu-\(row.slug)")
        } onRuleBroken: { try await editPage(req, form: form, error: $0) }
    }

    func retire(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let row = try await row(req)
        return try await req.submitForm {
            try await req.menuGame.retireMenu(slug: row.slug, by: admin.id)
            return Layout.redirect(to: Self.menu(row.slug))
        } onRuleBroken: { try await editPage(req, form: nil, error: $0) }
    }
}
