import Accounts
import Platform
import Plot
import Vapor

/// The address book (`/shop/addresses`): an account's saved delivery addresses, one of them the
/// default checkout starts from; add, change, make default, remove. A browser without an account
/// is asked to sign in (its orders still take an address at checkout, only not kept).
extension BanchanPages {
    // MARK: Address book

    func addressBook(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        guard owner.userID != nil else { return signInForAddresses(req) }
        let shown = AddressesShown(saved: try await req.banchan.addresses(of: owner), cartCount: try await cartCount(req, owner))
        return ownPage(req, shown: shown) { shown in
            let saved = shown.saved
            let main: Node<HTML.BodyContext> = .group(
                .div(.class("section-heading"), .h1(.text(req.t("banchan.address.title"))),
                     saved.count < BanchanStore.addressLimit ? .a(.class("button small"), .id("add-address"), .href(ShopPath.newAddress()), .text(req.t("banchan.address.add"))) : .empty),
                saved.isEmpty ? .section(.class("card empty-state"), .p(.id("addresses-empty"), .text(req.t("banchan.address.empty")))) : .empty,
                .ul(.class("address-list"), .id("addresses"), .forEach(saved) { address in
                    .li(
                        .class("card stack address-card"), .data(named: "id", value: address.id.uuidString),
                        .p(.strong(.text(address.recipient)), address.isDefault ? .span(.class("badge"), .text(req.t("banchan.address.default"))) : .empty),
                        .p(.class("muted"), .text(address.phone)),
                        .p(.text(address.delivery.line)),
                        .div(
                            .class("address-actions"),
                            .a(.class("button small"), .href(ShopPath.editAddress(address.id)), .ariaLabel(req.t("banchan.address.edit_of", ["recipient": address.recipient])),
                               .text(req.t("banchan.address.edit"))),
                            address.isDefault ? .empty : .form(
                                .action(ShopPath.defaultAddress(address.id)), .method(.post), .class("inline-form"), Layout.csrfField(req),
                                .button(.type(.submit), .class("link-button"), .text(req.t("banchan.address.make_default")))
                            ),
                            .form(
                                .action(ShopPath.removeAddress(address.id)), .method(.post), .class("inline-form"), Layout.csrfField(req),
                                .button(.type(.submit), .class("link-button"), .ariaLabel(req.t("banchan.address.remove_of", ["recipient": address.recipient])),
                                        .text(req.t("banchan.address.remove")))
                            )
                        )
                    )
                })
            )
            return (req.t("banchan.address.title"), .ok, shown.cartCount, main)
        }
    }

    private struct AddressesShown: Hashable, Sendable {
        let saved: [BanchanStore.SavedAddress]
        let cartCount: Int
    }

    func newAddress(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        guard owner.userID != nil else { return signInForAddresses(req) }
        return try await addressForm(req, owner: owner, editing: nil, form: nil, error: nil)
    }

    func editAddress(req: Request) async throws -> Response {
        let id = try req.addressIDParameter()
        let owner = try req.browserPrincipal()
        guard owner.userID != nil else { return signInForAddresses(req) }
        let saved = try await req.banchan.address(id, of: owner)
        return try await addressForm(req, owner: owner, editing: saved, form: nil, error: nil)
    }

    struct AddressForm: Content {
        package var recipient: String?
        package var phone: String?
        package var postcode: String?
        package var address: String?
        package var addressDetail: String?
        package var isDefault: String?

        func checked() throws -> Delivery.Address {
            try Delivery.Address.validated(recipient: recipient, phone: phone, postcode: postcode, address: address, addressDetail: addressDetail)
        }
    }

    func createAddress(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        guard owner.userID != nil else { return signInForAddresses(req) }
        let form = try req.content.decode(AddressForm.self)
        return try await req.submitForm {
            _ = try await req.banchan.saveAddress(try form.checked(), of: owner, makeDefault: form.isDefault == "on")
            return Layout.redirect(to: ShopPath.addresses())
        } onRuleBroken: { try await addressForm(req, owner: owner, editing: nil, form: form, error: $0) }
    }

    func changeAddress(req: Request) async throws -> Response {
        let id = try req.addressIDParameter()
        let owner = try req.browserPrincipal()
        guard owner.userID != nil else { return signInForAddresses(req) }
        let saved = try await req.banchan.address(id, of: owner)
        let form = try req.content.decode(AddressForm.self)
        return try await req.submitForm {
            _ = try await req.banchan.changeAddress(id, of: owner, to: try form.checked(), makeDefault: form.isDefault == "on")
            return Layout.redirect(to: ShopPath.addresses())
        } onRuleBroken: { try await addressForm(req, owner: owner, editing: saved, form: form, error: $0) }
    }

    func removeAddress(req: Request) async throws -> Response {
        let id = try req.addressIDParameter()
        let owner = try req.browserPrincipal()
        guard owner.userID != nil else { return signInForAddresses(req) }
        return try await req.submitForm {
            try await req.banchan.removeAddress(id, of: owner)
            return Layout.redirect(to: ShopPath.addresses())
        } onRuleBroken: { _ in Layout.redirect(to: ShopPath.addresses()) }
    }

    func makeDefaultAddress(req: Request) async throws -> Response {
        let id = try req.addressIDParameter()
        let owner = try req.browserPrincipal()
        guard owner.userID != nil else { return signInForAddresses(req) }
        let saved = try await req.banchan.address(id, of: owner)
        _ = try await req.banchan.changeAddress(id, of: owner, to: saved.delivery, makeDefault: true)
        return Layout.redirect(to: ShopPath.addresses())
    }

    /// The form to add an address or change one; `form` is what was sent when it comes back with `error`.
    func addressForm(_ req: Request, owner: Principal, editing: BanchanStore.SavedAddress?, form: AddressForm?, error: AppError?) async throws -> Response {
        let value = { (typed: String?, saved: String?) in typed ?? saved ?? "" }
        let field = { (name: String, key: String, current: String, type: HTMLInputType, autocomplete: String, max: Int) -> Node<HTML.FormContext> in
            .div(
                .class("field"),
                .label(.for("address-\(name)"), .text(req.t(key))),
                .input(.id("address-\(name)"), .name(name), .type(type), .value(current), .attribute(named: "autocomplete", value: autocomplete),
                       .attribute(named: "maxlength", value: String(max)))
            )
        }
        let title = req.t(editing == nil ? "banchan.address.add" : "banchan.address.edit_title")
        let isDefault = form.map { $0.isDefault == "on" } ?? (editing?.isDefault ?? false)
        let main: Node<HTML.BodyContext> = .section(
            .class("card narrow stack"), .ariaLabelledBy("address-form-title"),
            .h1(.id("address-form-title"), .text(title)),
            Layout.formError(req, error),
            PostcodeSearch.controls(req, postcode: "address-postcode", address: "address-address", detail: "address-addressDetail"),
            .form(
                .action(editing.map { ShopPath.editAddress($0.id) } ?? ShopPath.addresses()), .method(.post), .class("stack"), .id("address-form"),
                Layout.csrfField(req),
                field("recipient", "banchan.address.recipient", value(form?.recipient, editing?.recipient), .text, "name", 30),
                field("phone", "banchan.address.phone", value(form?.phone, editing?.phone), .tel, "tel", 20),
                field("postcode", "banchan.address.postcode", value(form?.postcode, editing?.postcode), .text, "postal-code", 5),
                field("address", "banchan.address.address", value(form?.address, editing?.address), .text, "address-line1", 200),
                field("addressDetail", "banchan.address.detail", value(form?.addressDetail, editing?.addressDetail), .text, "address-line2", 100),
                .label(.class("check"), .input(.type(.checkbox), .name("isDefault"), .value("on"), .id("address-default"),
                                               .attribute(named: "checked", value: isDefault ? "checked" : nil)),
                       .text(req.t("banchan.address.use_as_default"))),
                .button(.type(.submit), .class("button primary wide"), .id("save-address"), .text(req.t("banchan.address.save")))
            ),
            .a(.class("back-link"), .href(ShopPath.addresses()), .text(req.t("banchan.address.title")))
        )
        return page(req, title: title, status: error?.status ?? .ok, cartCount: try await cartCount(req, owner), postcodeSearch: true, main: main)
    }

    private func signInForAddresses(_ req: Request) -> Response {
        page(req, title: req.t("banchan.address.title"), cartCount: nil, main: .section(
            .class("card narrow stack empty-state"),
            .h1(.text(req.t("banchan.address.title"))),
            .p(.text(req.t("banchan.address.sign_in"))),
            .a(.class("button primary wide"), .href(SitePath.logIn() + "?next=" + ShopPath.addresses()), .text(req.t("banchan.address.sign_in_button")))
        ))
    }
}
