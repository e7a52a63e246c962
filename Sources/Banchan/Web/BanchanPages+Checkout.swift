import Accounts
import Payments
import Platform
import Plot
import Vapor

/// Checkout (`/shop/checkout`): where the order goes (a saved address or a new one), who takes it,
/// 새벽배송 or 택배, a note for the courier, and how to pay; then the order is placed and paid.
/// Works without scripts: the new-address fields show only while "new address" is chosen (CSS `:has`).
extension BanchanPages {
    // MARK: Checkout

    /// What the checkout form sends; kept as typed, so a page with an error shows it back.
    struct CheckoutForm: Content {
        package var idempotencyKey: String?
        /// A saved address's id, or `new`.
        package var addressChoice: String?
        package var recipient: String?
        package var phone: String?
        package var postcode: String?
        package var address: String?
        package var addressDetail: String?
        /// `on` when a new address should be kept for next time.
        package var saveAddress: String?
        package var slot: String?
        package var note: String?
        package var paymentMethod: String?
    }

    func checkout(req: Request) async throws -> Response {
        try await checkoutPage(req, owner: try req.browserPrincipal(), form: nil, error: nil)
    }

    /// The checkout page; `form` is what was sent when it comes back with `error`.
    /// Everything checkout shows but what was typed into a form sent back with its error (that
    /// page is never kept) and the checkout's own key (each page's, a reader's part).
    private struct CheckoutShown: Hashable, Sendable {
        let lines: [ShopLine]
        let totals: OrderTotals
        let saved: [BanchanStore.SavedAddress]
        let slots: [Delivery.Slot]
        let chosenAddress: String
        let chosenSlot: Delivery.Slot
        let signedIn: Bool
        /// The 새벽배송 arrival day at this moment, and the terms' revision (the cut-off said).
        let dawnArrives: String
        let termsRevision: Int
    }

    func checkoutPage(_ req: Request, owner: Principal, form: CheckoutForm?, error: AppError?) async throws -> Response {
        let shop = req.banchan
        let lines = try await shop.cart(of: owner)
        guard !lines.isEmpty, req.application.paymentGateway != nil else { return Layout.redirect(to: ShopPath.cart()) }
        let saved = owner.userID == nil ? [] : try await shop.addresses(of: owner)
        let slots = shop.slots(for: lines.map(\.dish))
        let environment = req.application.banchanEnvironment
        let shown = CheckoutShown(
            lines: lines, totals: shop.totals(of: lines), saved: saved, slots: slots,
            chosenAddress: form?.addressChoice ?? saved.first { $0.isDefault }?.id.uuidString ?? "new",
            chosenSlot: form?.slot.flatMap(Delivery.Slot.init(rawValue:)) ?? slots.first ?? .parcel, signedIn: owner.userID != nil,
            dawnArrives: environment.terms.terms.dawn.arrivalDay(placedAt: environment.now()),
            termsRevision: req.application.shopTermsInForce.current.revision
        )
        // One key per checkout shown: a double tap or a retried submit orders once.
        let idempotencyKey = Markup.escape(form?.idempotencyKey ?? SecureRandom.token(bytes: 16))
        return ownPage(req, shown: shown, keeps: form == nil && error == nil, postcodeSearch: true, reader: [idempotencyKey]) { shown in
            let lines = shown.lines, totals = shown.totals
            let main: Node<HTML.BodyContext> = .group(
                .h1(.text(req.t("banchan.checkout.title"))),
                Layout.formError(req, error),
                .plainForm(
                    .attribute(named: "action", value: ShopPath.orders()), .attribute(named: "method", value: "post"),
                    .class("stack checkout"), .id("checkout-form"),
                    Layout.csrfBodyField(req),
                    .input(.type(.hidden), .name("idempotencyKey"), .value(Layout.readerPartMarker(0))),
                    addressSection(req, saved: shown.saved, chosen: shown.chosenAddress, form: form, signedIn: shown.signedIn),
                    slotSection(req, slots: shown.slots, chosen: shown.chosenSlot, arrives: shown.dawnArrives),
                    .section(
                        .class("card stack"), .ariaLabelledBy("note-title"),
                        .h2(.id("note-title"), .text(req.t("banchan.checkout.note"))),
                        .label(.for("checkout-note"), .class("visually-hidden"), .text(req.t("banchan.checkout.note"))),
                        .textarea(.id("checkout-note"), .name("note"), .attribute(named: "rows", value: "2"),
                                  .attribute(named: "maxlength", value: String(Delivery.noteLimit)),
                                  .attribute(named: "placeholder", value: req.t("banchan.checkout.note_placeholder")), .text(form?.note ?? ""))
                    ),
                    paymentSection(req, chosen: form?.paymentMethod.flatMap(Delivery.PaymentMethod.init(rawValue:)) ?? .card),
                    .section(
                        .class("card totals"), .ariaLabelledBy("checkout-items-title"),
                        .h2(.id("checkout-items-title"), .text(req.t("banchan.checkout.items", ["count": String(lines.count)]))),
                        .ul(.class("checkout-lines"), .forEach(lines) { line in
                            .li(.span(.text(line.dish.title)), .span(.class("muted"), .text("× \(line.quantity)")),
                                .strong(.text(req.won(line.dish.salePrice * line.quantity))))
                        }),
                        .dl(
                            .dt(.text(req.t("banchan.items_total"))), .dd(.text(req.won(totals.itemsTotal))),
                            .dt(.text(req.t("banchan.delivery_fee"))), .dd(.text(req.won(totals.deliveryFee))),
                            .dt(.class("grand"), .text(req.t("banchan.total"))), .dd(.class("grand"), .id("checkout-total"), .text(req.won(totals.total)))
                        )
                    ),
                    .button(.type(.submit), .class("button primary wide"), .id("place-order"),
                            .text(req.t("banchan.checkout.submit", ["total": req.won(totals.total)])))
                ),
                .a(.class("back-link"), .href(ShopPath.cart()), .text(req.t("banchan.checkout.back_to_cart")))
            )
            return (req.t("banchan.checkout.title"), error?.status ?? .ok, lines.reduce(0) { $0 + $1.quantity }, main)
        }
    }

    private func addressSection(_ req: Request, saved: [BanchanStore.SavedAddress], chosen: String, form: CheckoutForm?, signedIn: Bool) -> Node<HTML.BodyContext> {
        let newChosen = saved.isEmpty || chosen == "new"
        let choices: Node<HTML.BodyContext> = saved.isEmpty ? .empty : .div(
            .class("address-choices stack"),
            .forEach(saved) { address in
                .label(
                    .class("choice-card"),
                    .input(.type(.radio), .name("addressChoice"), .value(address.id.uuidString), .id("address-\(address.id.uuidString)"),
                           .attribute(named: "checked", value: chosen == address.id.uuidString ? "checked" : nil)),
                    .span(.class("choice-text"),
                          .strong(.text(address.recipient)), address.isDefault ? .span(.class("badge"), .text(req.t("banchan.address.default"))) : .empty,
                          .span(.class("muted"), .text(address.phone)), .span(.text(address.delivery.line)))
                )
            },
            .label(
                .class("choice-card"),
                .input(.type(.radio), .name("addressChoice"), .value("new"), .id("address-new"),
                       .attribute(named: "checked", value: newChosen ? "checked" : nil)),
                .span(.class("choice-text"), .strong(.text(req.t("banchan.checkout.new_address"))))
            )
        )
        let field = { (name: String, key: String, value: String?, type: String, autocomplete: String, extra: [Attribute<HTML.BodyContext>]) -> Node<HTML.BodyContext> in
            let attributes: [Attribute<HTML.BodyContext>] = [
                .attribute(named: "id", value: "checkout-\(name)"), .attribute(named: "name", value: name), .attribute(named: "type", value: type),
                .attribute(named: "autocomplete", value: autocomplete), Attribute(name: "value", value: value ?? "", ignoreIfValueIsEmpty: false),
            ]
            return .div(
                .class("field"),
                .label(.for("checkout-\(name)"), .text(req.t(key))),
                .selfClosedElement(named: "input", attributes: attributes + extra)
            )
        }
        let fields: Node<HTML.BodyContext> = .div(
            .class(saved.isEmpty ? "new-address stack" : "new-address stack optional"), .id("new-address"),
            field("recipient", "banchan.address.recipient", form?.recipient, "text", "name", [.attribute(named: "maxlength", value: "30")]),
            field("phone", "banchan.address.phone", form?.phone, "tel", "tel", [.attribute(named: "inputmode", value: "tel"),
                                                                                .attribute(named: "placeholder", value: "010-1234-5678")]),
            PostcodeSearch.controls(req, postcode: "checkout-postcode", address: "checkout-address", detail: "checkout-addressDetail"),
            field("postcode", "banchan.address.postcode", form?.postcode, "text", "postal-code", [.attribute(named: "inputmode", value: "numeric"),
                                                                                                  .attribute(named: "maxlength", value: "5")]),
            field("address", "banchan.address.address", form?.address, "text", "address-line1", [.attribute(named: "maxlength", value: "200")]),
            field("addressDetail", "banchan.address.detail", form?.addressDetail, "text", "address-line2", [.attribute(named: "maxlength", value: "100")]),
            signedIn
                ? .label(.class("check"), .input(.type(.checkbox), .name("saveAddress"), .value("on"), .id("checkout-save-address"),
                                                 .attribute(named: "checked", value: form == nil || form?.saveAddress == "on" ? "checked" : nil)),
                         .text(req.t("banchan.checkout.save_address")))
                : .p(.class("hint"), .text(req.t("banchan.checkout.sign_in_to_save")))
        )
        return .section(
            .class("card stack"), .ariaLabelledBy("address-title"),
            .div(.class("section-heading"), .h2(.id("address-title"), .text(req.t("banchan.checkout.address"))),
                 signedIn ? .a(.href(ShopPath.addresses()), .text(req.t("banchan.address.manage"))) : .empty),
            .fieldset(.legend(req.t("banchan.checkout.address"), visuallyHidden: true), choices, fields)
        )
    }

    private func slotSection(_ req: Request, slots: [Delivery.Slot], chosen: Delivery.Slot, arrives: String) -> Node<HTML.BodyContext> {
        .section(
            .class("card stack"), .ariaLabelledBy("slot-title"),
            .h2(.id("slot-title"), .text(req.t("banchan.checkout.slot"))),
            .fieldset(
                .legend(req.t("banchan.checkout.slot"), visuallyHidden: true),
                .forEach(Delivery.Slot.allCases) { slot in
                    let available = slots.contains(slot)
                    let detail = !available ? req.t("banchan.checkout.slot_unavailable")
                        : slot == .dawn ? req.t("banchan.checkout.dawn_arrives", ["date": Self.monthDay(req, arrives)]) : req.t("banchan.checkout.parcel_arrives")
                    return .label(
                        .class(available ? "choice-card" : "choice-card disabled"),
                        .input(.type(.radio), .name("slot"), .value(slot.rawValue), .id("slot-\(slot.rawValue)"),
                               .attribute(named: "checked", value: available && slot == chosen ? "checked" : nil),
                               .attribute(named: "disabled", value: available ? nil : "disabled")),
                        .span(.class("choice-text"), .strong(.text(req.t("banchan.slot.\(slot.rawValue)"))), .span(.class("muted"), .text(detail)))
                    )
                }
            ),
            .p(.class("hint"), .id("dawn-cutoff"), .text(req.t("banchan.checkout.cutoff", ["time": req.application.dawnCutoffPhrase(req.language)])))
        )
    }

    private func paymentSection(_ req: Request, chosen: Delivery.PaymentMethod) -> Node<HTML.BodyContext> {
        .section(
            .class("card stack"), .ariaLabelledBy("method-title"),
            .h2(.id("method-title"), .text(req.t("banchan.checkout.method"))),
            .fieldset(
                .class("method-grid"),
                .legend(req.t("banchan.checkout.method"), visuallyHidden: true),
                .forEach(Delivery.PaymentMethod.allCases) { method in
                    .label(.class("choice-card compact"),
                           .input(.type(.radio), .name("paymentMethod"), .value(method.rawValue), .id("method-\(method.rawValue)"),
                                  .attribute(named: "checked", value: method == chosen ? "checked" : nil)),
                           .span(.text(req.t("banchan.pay_method.\(method.rawValue)"))))
                }
            )
        )
    }

    /// `12월 2일`, `Dec 2`, `12月2日` for a `yyyy-MM-dd` day.
    static func monthDay(_ req: Request, _ day: String) -> String {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return day }
        return req.t("banchan.date.month_day", ["month": String(parts[1]), "day": String(parts[2])])
    }

    /// The delivery a checkout form asks for: a saved address of the account's or the fields typed
    /// (422 naming the first that is wrong).
    func deliveryRequest(_ req: Request, _ form: CheckoutForm, owner: Principal) async throws -> DeliveryRequest {
        guard let slot = form.slot.flatMap(Delivery.Slot.init(rawValue:)) else { throw AppError.invalid("invalid_slot") }
        guard let method = Delivery.PaymentMethod(rawValue: form.paymentMethod ?? Delivery.PaymentMethod.card.rawValue) else {
            throw AppError.invalid("invalid_payment_method")
        }
        // The form's address choice is the API's `addressId` (`new`: the fields typed).
        let input = DeliveryInput(addressId: form.addressChoice == "new" ? nil : form.addressChoice, recipient: form.recipient, phone: form.phone,
                                  postcode: form.postcode, address: form.address, addressDetail: form.addressDetail, slot: slot, note: form.note)
        return try await req.banchan.deliveryRequest(input, paymentMethod: method, for: owner)
    }
}
