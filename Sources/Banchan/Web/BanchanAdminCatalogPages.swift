import Accounts
import Foundation
import Media
import NIOFoundationEssentialsCompat
import Platform
import Plot
import Vapor

/// The console's Catalog tab for the shop (`/admin/catalog`, administrators only): every dish with
/// its price, sale and stock, retired ones too; one dish's form changes its price, sale price,
/// stock and section, retires it or brings it back; the shop's terms (`/admin/catalog/shop`) set the
/// delivery fee and the 새벽배송 cut-off for every instance. Every change is written to the audit log.
struct BanchanAdminCatalogPages: RouteCollection {
    static let catalog: PagePath = "/admin/catalog"
    static let dish: PagePath1 = "/admin/catalog/dishes/:hash"
    static let retire: PagePath1 = "/admin/catalog/dishes/:hash/retire"
    static let shopSettings: PagePath = "/admin/catalog/shop"
    static let photo: PagePath1 = "/admin/catalog/dishes/:hash/photo"
    static let newDish: PagePath = "/admin/catalog/new"

    func boot(routes: any RoutesBuilder) throws {
        let admin = routes.grouped(AdministratorsOnly())
        admin.get(Self.catalog, use: list)
        admin.get(Self.dish, use: edit)
        admin.post(Self.dish, use: change)
        admin.post(Self.retire, use: retire)
        admin.on(.POST, Self.photo.components, body: .collect(maxSize: "6mb"), use: uploadPhoto)
        admin.get(Self.newDish, use: newDishForm)
        admin.on(.POST, Self.newDish.components, body: .collect(maxSize: "6mb"), use: addDish)
        admin.get(Self.shopSettings, use: settings)
        admin.post(Self.shopSettings, use: changeSettings)
    }

    private func page(_ req: Request, title: String, status: HTTPResponseStatus = .ok, main: Node<HTML.BodyContext>) -> Response {
        AdminConsole.page(req, tab: .catalog, title: title, status: status, stylesheets: [BanchanPages.stylesheet], main: main)
    }

    func list(req: Request) async throws -> Response {
        // Read and made again only after a dish changed (every dish write moves the listings' version).
        try await AdminConsole.keptPage(req, tab: .catalog, version: req.application.banchanListings.version,
                                        stylesheets: [BanchanPages.stylesheet]) {
            let dishes = try await req.banchan.store.allDishRows()
            let main: Node<HTML.BodyContext> = .group(
                AdminConsole.catalogNav(req, current: "dishes"),
                .div(.class("section-heading"), .h1(.text(req.t("admin.catalog.title"))),
                     .a(.class("button small"), .id("new-dish"), .href(Self.newDish()), .text("+ " + req.t("admin.catalog.new")))),
                .p(.class("muted"), .text(req.t("admin.catalog.lead"))),
                .forEach(DishSection.allCases) { section in
                    .section(
                        .class("card catalog-section"), .ariaLabelledBy("catalog-\(section.rawValue)"),
                        .h2(.id("catalog-\(section.rawValue)"), .text(req.t("banchan.section.\(section.rawValue)"))),
                        .ul(.class("catalog-list"), .forEach(dishes.filter { $0.section == section.rawValue }) { row in
                            .li(.a(
                                .class(row.retiredAt == nil ? "catalog-row" : "catalog-row retired"), .href(Self.dish(row.hash)), .id("catalog-\(row.hash)"),
                                .span(.class("catalog-title"), .text("\(row.emoji) \(row.title)")),
                                .span(.class("catalog-price"), .text(req.won(row.salePrice) + (row.originalPrice.map { " (" + req.won($0) + ")" } ?? ""))),
                                .span(.class(row.stock == 0 ? "catalog-stock attention" : "catalog-stock"), .text(req.t("admin.catalog.stock", ["stock": String(row.stock)]))),
                                row.retiredAt == nil ? .empty : .span(.class("badge muted"), .text(req.t("admin.catalog.retired")))
                            ))
                        })
                    )
                }
            )
            return (req.t("admin.catalog.title"), main)
        }
    }

    func edit(req: Request) async throws -> Response {
        try await editPage(req, form: nil, error: nil)
    }

    private func dishRow(_ req: Request) async throws -> BanchanStore.DishRow {
        guard let row = try await req.banchan.store.dishRow(hash: req.parameters.get("hash") ?? "") else { throw AppError.notFound("dish_not_found") }
        return row
    }

    struct DishForm: Content {
        /// What a buyer reads: absent fields are left as they are.
        var title: String?
        var description: String?
        /// How it travels (the dish page's 배송 안내); empty: none.
        var deliveryInfo: String?
        @FormNumber var salePrice: Int?
        /// 0 or empty: no sale.
        @FormNumber var originalPrice: Int?
        @FormNumber var stock: Int?
        var section: String?
    }

    private func editPage(_ req: Request, form: DishForm?, error: AppError?) async throws -> Response {
        let row = try await dishRow(req)
        let retired = row.retiredAt != nil
        let number = { (name: String, key: String, value: Int?, min: Int, required: Bool) -> Node<HTML.FormContext> in
            .div(.class("field"),
                 .label(.for("dish-\(name)"), .text(req.t(key))),
                 .input(.type(.number), .id("dish-\(name)"), .name(name), .value(value.map(String.init) ?? ""), .required(required),
                        .attribute(named: "min", value: String(min)), .attribute(named: "inputmode", value: "numeric")))
        }
        let section = form?.section ?? row.section
        let text = { (name: String, key: String, value: String, max: Int, required: Bool) -> Node<HTML.FormContext> in
            .div(.class("field"),
                 .label(.for("dish-\(name)"), .text(req.t(key))),
                 .input(.type(.text), .id("dish-\(name)"), .name(name), .value(value), .attribute(named: "maxlength", value: String(max)), .required(required)))
        }
        let main: Node<HTML.BodyContext> = .group(
            .p(.a(.href(Self.catalog()), .text("← " + req.t("admin.catalog.title")))),
            .h1(.id("dish-title"), .text("\(row.emoji) \(row.title)")),
            Layout.formError(req, error),
            retired ? .p(.class("caution"), .id("dish-retired"), .text(req.t("admin.catalog.retired_note"))) : .empty,
            .section(
                .class("card stack"),
                .form(
                    .action(Self.dish(row.hash)), .method(.post), .class("stack"), .id("dish-form"),
                    Layout.csrfField(req),
                    text("title", "admin.catalog.new_title", form?.title ?? row.title, 60, true),
                    text("description", "admin.catalog.new_description", form?.description ?? row.dish.description, 200, false),
                    .div(.class("field"),
                         .label(.for("dish-deliveryInfo"), .text(req.t("admin.catalog.delivery_info"))),
                         .textarea(.id("dish-deliveryInfo"), .name("deliveryInfo"), .attribute(named: "maxlength", value: "300"),
                                   .attribute(named: "rows", value: "3"), .attribute(named: "aria-describedby", value: "dish-deliveryInfo-hint"),
                                   .text(form?.deliveryInfo ?? row.dish.deliveryInfo)),
                         .p(.class("hint"), .id("dish-deliveryInfo-hint"), .text(req.t("admin.catalog.delivery_info_hint")))),
                    number("salePrice", "admin.catalog.sale_price", form.map(\.salePrice) ?? row.salePrice, 0, true),
                    number("originalPrice", "admin.catalog.original_price", form.map { $0.originalPrice ?? 0 } ?? row.originalPrice ?? 0, 0, false),
                    number("stock", "admin.catalog.stock_field", form.map(\.stock) ?? row.stock, 0, true),
                    .div(.class("field"),
                         .label(.for("dish-section"), .text(req.t("admin.catalog.section"))),
                         // Written out: Plot has no `<select>` in a form; every value and label is escaped.
                         .raw(#"<select id="dish-section" name="section">"# + DishSection.allCases.map { value in
                             #"<option value="\#(value.rawValue)"\#(value.rawValue == section ? " selected" : "")>\#(Markup.escape(req.t("banchan.section.\(value.rawValue)")))</option>"#
                         }.joined() + "</select>")),
                    .button(.type(.submit), .class("button primary wide"), .id("save-dish"), .text(req.t(retired ? "admin.catalog.save_and_restore" : "admin.catalog.save")))
                )
            ),
            retired ? .empty : Self.photoSection(req, row),
            retired ? .empty : .form(
                .action(Self.retire(row.hash)), .method(.post), Layout.csrfField(req),
                .button(.type(.submit), .class("button danger wide"), .id("retire-dish"), .text(req.t("admin.catalog.retire")))
            ),
            .p(.a(.href(ShopPath.dish(row.hash)), .text(req.t("admin.catalog.see_in_shop"))))
        )
        return page(req, title: row.title, status: error?.status ?? .ok, main: main)
    }

    /// Saves the form; a retired dish is brought back with it (`addDish` with the dish as it was).
    func change(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let form = try req.content.decode(DishForm.self)
        let row = try await dishRow(req)
        return try await req.submitForm {
            guard let salePrice = form.salePrice else { throw AppError.invalid("empty_number", ["field": req.t("admin.catalog.sale_price")]) }
            guard let stock = form.stock else { throw AppError.invalid("empty_number", ["field": req.t("admin.catalog.stock_field")]) }
            let apply = { (dish: inout Dish) throws in
                if let title = form.title { dish.title = title.trimmingCharacters(in: .whitespacesAndNewlines) }
                if let description = form.description { dish.description = description.trimmingCharacters(in: .whitespacesAndNewlines) }
                if let deliveryInfo = form.deliveryInfo {
                    // Line breaks typed in the box are kept; the page shows each line.
                    dish.deliveryInfo = deliveryInfo.replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
                }
                dish.salePrice = salePrice
                dish.originalPrice = form.originalPrice == 0 ? nil : form.originalPrice
                if let raw = form.section {
                    guard let section = DishSection(rawValue: raw) else { throw AppError.invalid("invalid_dish_field", ["field": "section"]) }
                    dish.section = section
                }
            }
            if row.retiredAt != nil {
                var dish = row.dish
                try apply(&dish)
                _ = try await req.banchan.addDish(dish, stock: stock, by: admin.id)
            } else {
                _ = try await req.banchan.changeDish(hash: row.hash, stock: stock, by: admin.id, apply)
            }
            return Layout.redirect(to: Self.catalog() + "#catalog-\(row.hash)")
        } onRuleBroken: { try await editPage(req, form: form, error: $0) }
    }

    // MARK: Photos and new dishes

    /// The dish's picture as the shop shows it, and the form that puts a photo there.
    static func photoSection(_ req: Request, _ row: BanchanStore.DishRow) -> Node<HTML.BodyContext> {
        .section(
            .class("card stack"), .ariaLabelledBy("dish-photo-title"),
            .h2(.id("dish-photo-title"), .text(req.t("admin.catalog.photo"))),
            .img(.class("dish-photo-preview"), .id("dish-photo"), .src(BanchanPages.images.main(row.hash)), .alt(row.title),
                 .attribute(named: "width", value: "160"), .attribute(named: "height", value: "160")),
            .p(.class("hint"), .text(req.t(row.photoKey == nil ? "admin.catalog.photo_drawn" : "admin.catalog.photo_uploaded"))),
            .plainForm(
                .attribute(named: "action", value: photo(row.hash)), .attribute(named: "method", value: "post"),
                .attribute(named: "enctype", value: "multipart/form-data"), .class("stack"), .id("photo-form"),
                Layout.csrfBodyField(req),
                photoField(req, required: true),
                .button(.type(.submit), .class("button wide"), .id("upload-photo"), .text(req.t("admin.catalog.photo_upload")))
            )
        )
    }

    static func photoField(_ req: Request, required: Bool) -> Node<HTML.BodyContext> {
        .div(.class("field"),
             .label(.for("dish-photo-file"), .text(req.t("admin.catalog.photo_file"))),
             .input(.type(.file), .id("dish-photo-file"), .name("photo"), .attribute(named: "accept", value: "image/jpeg,image/png,image/webp"),
                    .attribute(named: "required", value: required ? "required" : nil)),
             .p(.class("hint"), .text(req.t("admin.catalog.photo_hint"))))
    }

    struct PhotoForm: Content { var photo: File? }

    func uploadPhoto(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let row = try await dishRow(req)
        return try await req.submitForm {
            let form = try req.content.decode(PhotoForm.self)
            guard let file = form.photo, file.data.readableBytes > 0 else { throw AppError.badRequest("empty_upload") }
            _ = try await req.banchan.setDishPhoto(hash: row.hash, data: Data(buffer: file.data), files: req.application.files, by: admin.id)
            return Layout.redirect(to: Self.dish(row.hash))
        } onRuleBroken: { try await editPage(req, form: nil, error: $0) }
    }

    /// What "+ 상품 추가" asks: what a buyer reads first (name, section, description, price, sale,
    /// stock, emoji, how it travels) and, optionally, its photo; the rest takes the API's defaults.
    struct NewDishForm: Content {
        var title: String?
        var section: String?
        var description: String?
        @FormNumber var salePrice: Int?
        @FormNumber var originalPrice: Int?
        @FormNumber var stock: Int?
        var emoji: String?
        var dawn: String?
        var parcel: String?
        var photo: File?
    }

    func newDishForm(req: Request) async throws -> Response {
        newDishPage(req, form: nil, error: nil)
    }

    private func newDishPage(_ req: Request, form: NewDishForm?, error: AppError?) -> Response {
        let text = { (name: String, key: String, value: String?, max: Int, required: Bool) -> Node<HTML.BodyContext> in
            .div(.class("field"),
                 .label(.for("new-\(name)"), .text(req.t(key))),
                 .input(.type(.text), .id("new-\(name)"), .name(name), .value(value ?? ""), .attribute(named: "maxlength", value: String(max)),
                        .attribute(named: "required", value: required ? "required" : nil)))
        }
        let number = { (name: String, key: String, value: Int?, required: Bool) -> Node<HTML.BodyContext> in
            .div(.class("field"),
                 .label(.for("new-\(name)"), .text(req.t(key))),
                 .input(.type(.number), .id("new-\(name)"), .name(name), .value(value.map(String.init) ?? ""), .attribute(named: "min", value: "0"),
                        .attribute(named: "inputmode", value: "numeric"), .attribute(named: "required", value: required ? "required" : nil)))
        }
        let section = form?.section ?? DishSection.side.rawValue
        let ways = (dawn: form.map { $0.dawn == "on" } ?? true, parcel: form.map { $0.parcel == "on" } ?? true)
        let main: Node<HTML.BodyContext> = .group(
            .p(.a(.href(Self.catalog()), .text("← " + req.t("admin.catalog.title")))),
            .h1(.id("new-dish-title"), .text(req.t("admin.catalog.new"))),
            Layout.formError(req, error),
            .section(
                .class("card stack"),
                .plainForm(
                    .attribute(named: "action", value: Self.newDish()), .attribute(named: "method", value: "post"),
                    .attribute(named: "enctype", value: "multipart/form-data"), .class("stack"), .id("new-dish-form"),
                    Layout.csrfBodyField(req),
                    text("title", "admin.catalog.new_title", form?.title, 60, true),
                    .div(.class("field"),
                         .label(.for("new-section"), .text(req.t("admin.catalog.section"))),
                         .selectBox(.id("new-section"), .attribute(named: "name", value: "section"), .forEach(DishSection.allCases) { value in
                             .choice(value: value.rawValue, selected: value.rawValue == section, req.t("banchan.section.\(value.rawValue)"))
                         })),
                    text("description", "admin.catalog.new_description", form?.description, 200, false),
                    number("salePrice", "admin.catalog.sale_price", form?.salePrice, true),
                    number("originalPrice", "admin.catalog.original_price", form?.originalPrice, false),
                    number("stock", "admin.catalog.stock_field", form?.stock, true),
                    text("emoji", "admin.catalog.new_emoji", form?.emoji ?? "🍱", 2, true),
                    .fieldset(
                        .class("field"), .legend(req.t("banchan.delivery")),
                        .label(.class("check"), .input(.type(.checkbox), .id("new-dawn"), .name("dawn"), .value("on"),
                                                       .attribute(named: "checked", value: ways.dawn ? "checked" : nil)),
                               .text(req.t("banchan.delivery_type.dawn"))),
                        .label(.class("check"), .input(.type(.checkbox), .id("new-parcel"), .name("parcel"), .value("on"),
                                                       .attribute(named: "checked", value: ways.parcel ? "checked" : nil)),
                               .text(req.t("banchan.delivery_type.parcel")))
                    ),
                    Self.photoField(req, required: false),
                    .button(.type(.submit), .class("button primary wide"), .id("add-dish"), .text(req.t("admin.catalog.new_add")))
                )
            )
        )
        return page(req, title: req.t("admin.catalog.new"), status: error?.status ?? .ok, main: main)
    }

    /// Adds the dish (a new hash, the API's rules and audit) and then its photo when one came. The
    /// photo is checked first: a refused one adds nothing, and the form comes back with why.
    func addDish(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let form = try req.content.decode(NewDishForm.self)
        return try await req.submitForm {
            guard let salePrice = form.salePrice else { throw AppError.invalid("empty_number", ["field": req.t("admin.catalog.sale_price")]) }
            guard let stock = form.stock else { throw AppError.invalid("empty_number", ["field": req.t("admin.catalog.stock_field")]) }
            guard let section = form.section.flatMap(DishSection.init(rawValue:)) else { throw AppError.invalid("invalid_dish_field", ["field": "section"]) }
            let photo = form.photo.flatMap { $0.data.readableBytes > 0 ? Data(buffer: $0.data) : nil }
            if let photo { _ = try BanchanService.cleanDishPhoto(photo) }
            let ways = [form.dawn == "on" ? DeliveryType.dawn : nil, form.parcel == "on" ? DeliveryType.parcel : nil].compactMap { $0 }
            let dish = Dish(hash: Self.newHash(), section: section, title: (form.title ?? "").trimmingCharacters(in: .whitespacesAndNewlines),
                            description: (form.description ?? "").trimmingCharacters(in: .whitespacesAndNewlines), salePrice: salePrice,
                            originalPrice: form.originalPrice.flatMap { $0 == 0 ? nil : $0 }, badges: [], deliveryTypes: ways, pointRate: 1,
                            deliveryInfo: "", minQuantity: 1, maxQuantity: 10, emoji: (form.emoji ?? "").trimmingCharacters(in: .whitespaces),
                            color: "#FDE68A", weight: "", ingredients: "", storage: "", detailSections: [], thumbCount: 1)
            let added = try await req.banchan.addDish(dish, stock: stock, by: admin.id)
            if let photo {
                _ = try await req.banchan.setDishPhoto(hash: added.hash, data: photo, files: req.application.files, by: admin.id)
            }
            return Layout.redirect(to: Self.dish(added.hash))
        } onRuleBroken: { newDishPage(req, form: form, error: $0) }
    }

    /// A hash no catalog dish has (theirs are five letters and digits): `N` and five of the
    /// letters and digits that cannot be misread.
    static func newHash() -> String {
        let letters = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return "N" + String((0..<5).map { _ in letters.randomElement() ?? "A" })
    }

    func retire(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let row = try await dishRow(req)
        return try await req.submitForm {
            try await req.banchan.retireDish(hash: row.hash, by: admin.id)
            return Layout.redirect(to: Self.dish(row.hash))
        } onRuleBroken: { try await editPage(req, form: nil, error: $0) }
    }

    // MARK: The shop's terms

    func settings(req: Request) async throws -> Response {
        settingsPage(req, form: nil, error: nil)
    }

    private func settingsPage(_ req: Request, form: BanchanService.TermsInput?, error: AppError?) -> Response {
        let state = req.application.shopTermsInForce.current
        let terms = state.terms
        let number = { (name: String, key: String, value: String, range: ClosedRange<Int>) -> Node<HTML.FormContext> in
            .div(.class("field"),
                 .label(.for("shop-\(name)"), .text(req.t(key))),
                 .input(.type(.number), .id("shop-\(name)"), .name(name), .value(value), .required(true), .attribute(named: "min", value: String(range.lowerBound)),
                        .attribute(named: "max", value: String(range.upperBound)), .attribute(named: "inputmode", value: "numeric")))
        }
        let saved = state.saved.map { req.t("admin.shop.saved_at", ["time": PageDates.medium($0.updatedAt, req.language)]) }
            ?? req.t("admin.shop.from_environment")
        let dawnDay = terms.dawn.arrivalDay(placedAt: req.application.banchanEnvironment.now())
        // The terms' revision stands for all they show; the arrival day follows the clock. A form
        // sent back with its error is shown once, not kept.
        let shown = SettingsShown(revision: state.revision, dawnDay: dawnDay)
        return Layout.keptPage(req, shown: shown, keeps: form == nil && error == nil) { _ in
            let main: Node<HTML.BodyContext> = .group(
                AdminConsole.catalogNav(req, current: "shop"),
                .h1(.text(req.t("admin.shop.title"))),
                .p(.class("muted"), .text(req.t("admin.shop.lead"))),
                Layout.formError(req, error),
                error == nil && req.query[String.self, at: "saved"] == "1"
                    ? .p(.class("notice"), .role("status"), .id("shop-settings-notice"), .text(req.t("admin.shop.saved"))) : .empty,
                .section(
                    .class("card stack"),
                    .form(
                        .action(Self.shopSettings()), .method(.post), .class("stack"), .id("shop-settings-form"),
                        Layout.csrfField(req),
                        number("deliveryFee", "admin.shop.delivery_fee", form?.deliveryFee.map(String.init) ?? String(terms.delivery.fee), ShopTerms.feeRange),
                        number("freeDeliveryFrom", "admin.shop.free_from", form?.freeDeliveryFrom.map(String.init) ?? String(terms.delivery.freeFrom),
                               ShopTerms.freeFromRange),
                        .div(.class("field"),
                             .label(.for("shop-dawnCutoff"), .text(req.t("admin.shop.dawn_cutoff"))),
                             .input(.type(.time), .id("shop-dawnCutoff"), .name("dawnCutoff"), .value(form?.dawnCutoff ?? terms.dawn.cutoffText),
                                    .attribute(named: "aria-describedby", value: "shop-dawn-now"))),
                        .p(.class("hint"), .id("shop-dawn-now"), .text(req.t("admin.shop.dawn_now", ["cutoff": SpokenTime.phrase(minutes: terms.dawn.cutoffMinutes, req.language), "day": dawnDay]))),
                        .button(.type(.submit), .class("button primary wide"), .id("save-shop-settings"), .text(req.t("admin.catalog.save")))
                    )
                ),
                .p(.class("muted"), .id("shop-settings-saved"), .text(saved)),
                .p(.class("muted"), .text(req.t("admin.shop.now_shown", ["fee": req.deliveryFeeLabel])))
            )
            return AdminConsole.parts(req, tab: .catalog, title: req.t("admin.shop.title"), status: error?.status ?? .ok,
                                      stylesheets: [BanchanPages.stylesheet], main: main)
        }
    }

    private struct SettingsShown: Hashable, Sendable {
        let revision: Int
        let dawnDay: String
    }

    /// The shop settings as the page's form sends them (the API's `TermsInput` with its numbers
    /// read as a form's: an emptied box is named in the form, not a bare 400).
    struct SettingsForm: Content {
        @FormNumber var deliveryFee: Int?
        @FormNumber var freeDeliveryFrom: Int?
        var dawnCutoff: String?

        var input: BanchanService.TermsInput {
            BanchanService.TermsInput(deliveryFee: deliveryFee, freeDeliveryFrom: freeDeliveryFrom, dawnCutoff: dawnCutoff)
        }
    }

    func changeSettings(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let form = try req.content.decode(SettingsForm.self)
        return try await req.submitForm {
            for (value, label) in [(form.deliveryFee, "admin.shop.delivery_fee"), (form.freeDeliveryFrom, "admin.shop.free_from")] where value == nil {
                throw AppError.invalid("empty_number", ["field": req.t(label)])
            }
            let service = req.banchan
            try await service.changeTerms(try service.terms(from: form.input), by: admin.id)
            return Layout.redirect(to: Self.shopSettings() + "?saved=1")
        } onRuleBroken: { settingsPage(req, form: form.input, error: $0) }
    }
}
