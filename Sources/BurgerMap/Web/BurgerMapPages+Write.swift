import Accounts
import Foundation
import Platform
import Plot
import Vapor

/// Writing a review: the place, the stars, the text and the photos, each with its inline error.
extension BurgerMapPages {
    // MARK: Writing a review

    func write(req: Request) async throws -> Response {
        // `?place=` (from a place's page) starts with that place chosen; anything else is ignored.
        // Kept whole (the address holds the choice): at the map's content version when it shows a place.
        let version = req.application.burgerMapCache.generation
        var chosen: PlaceDetailResponse?
        if let raw = req.query[String.self, at: "place"], let id = UUID(uuidString: raw) {
            chosen = try? PlaceDetailResponse(await req.burgerMap.placeDetail(id, viewer: nil))
        }
        return try await kept(req, content: chosen == nil ? nil : version) { try writeParts(req, chosen: chosen) }
    }

    private func writeParts(_ req: Request, chosen: PlaceDetailResponse?) throws -> Layout.PageParts {
        let library = req.application.mapLibrary
        let center = chosen.map { (lat: $0.lat, lon: $0.lon) } ?? Self.defaultCenter
        let form: Node<HTML.BodyContext> = .plainForm(
            .id("review-form"), .class("review-form stack"), .attribute(named: "novalidate", value: "novalidate"),
            placeFields(req, chosen: chosen),
            ratingField(req),
            reviewFields(req),
            photoField(req),
            .p(.id("form-error"), .class("form-error"), .role("alert")),
            .button(.type(.submit), .id("post-review"), .class("button primary wide"), .text(req.t("burger_map.write.post")))
        )
        return parts(
            req, title: req.t("burger_map.write.title"), tab: .write, script: "write", stylesheets: ["/css/burger-map-write.css"],
            withMap: true, postcodeSearch: true,
            config: ["map": library.configValue(center: center, zoom: chosen == nil ? Self.defaultZoom : 16),
                     "place": try chosen.map { try json($0) as Any } ?? NSNull()],
            main: .group(.h1(.text(req.t("burger_map.write.title"))), form)
        )
    }

    func fieldError(_ id: String) -> Node<HTML.BodyContext> { .p(.id("error-\(id)"), .class("field-error"), .role("alert")) }


    func placeFields(_ req: Request, chosen: PlaceDetailResponse?) -> Node<HTML.BodyContext> {
        let hidden: Node<HTML.BodyContext> = .attribute(named: "hidden", value: "hidden")
        let current: Node<HTML.BodyContext> = .div(
            .id("chosen-place"), .class("chosen-place"), chosen == nil ? hidden : .empty,
            .strong(.class("chosen-name"), .text(chosen?.name ?? "")),
            .span(.class("chosen-address muted"), .text(chosen?.address ?? "")),
            .button(.type(.button), .id("change-place"), .class("link-button"), .text(req.t("burger_map.write.change_place")))
        )
        let picker: Node<HTML.BodyContext> = .div(
            .class("place-picker"), chosen == nil ? .empty : hidden,
            .label(.for("place-search"), .text(req.t("burger_map.write.search_place"))),
            .input(.type(.search), .id("place-search"), .attribute(named: "autocomplete", value: "off"),
                   .attribute(named: "maxlength", value: "40"), .placeholder(req.t("burger_map.write.search_placeholder")),
                   .attribute(named: "aria-describedby", value: "error-place")),
            .ul(.id("place-results"), .class("place-results")),
            .button(.type(.button), .id("new-place-toggle"), .class("link-button"), .ariaControls("new-place"),
                    .attribute(named: "aria-expanded", value: "false"), .text(req.t("burger_map.write.new_place")))
        )
        let newPlace: Node<HTML.BodyContext> = .fieldset(
            .id("new-place"), .class("new-place stack"), hidden,
            .legend(req.t("burger_map.write.new_place")),
            textField(req, id: "new-place-name", label: "burger_map.write.place_name", max: 60, error: "error-place"),
            // 우편번호 찾기 fills the address; the address then moves the pin (Kakao's address
            // search, when it has a key) for the writer to confirm on the map.
            .input(.type(.hidden), .id("new-place-postcode")),
            PostcodeSearch.controls(req, postcode: "new-place-postcode", address: "new-place-address", detail: "new-place-map",
                                    label: "postcode.open_address"),
            textField(req, id: "new-place-address", label: "burger_map.write.place_address", max: 120, error: "error-place"),
            .p(.class("hint"), .text(req.t("burger_map.write.position_hint"))),
            .div(.id("new-place-map"), .class("new-place-map"), .ariaLabel(req.t("burger_map.write.position_map"))),
            .button(.type(.button), .id("use-location"), .class("button"), .text(req.t("burger_map.write.use_location"))),
            .div(
                .class("position-fields"),
                numberField(req, id: "new-place-lat", label: "burger_map.write.lat"),
                numberField(req, id: "new-place-lon", label: "burger_map.write.lon")
            )
        )
        let hiddenID: Node<HTML.BodyContext> = .input(.type(.hidden), .id("place-id"), .name("placeId"), .value(chosen?.id.uuidString ?? ""))
        return .fieldset(
            .class("field place-field"),
            .legend(req.t("burger_map.write.place")),
            hiddenID, current, picker, newPlace,
            fieldError("place")
        )
    }

    func ratingField(_ req: Request) -> Node<HTML.BodyContext> {
        let stars: Node<HTML.BodyContext> = .div(
            .class("star-picker"),
            .forEach((1...5).reversed()) { value in
                .group(
                    .input(.type(.radio), .id("rating-\(value)"), .name("rating"), .value(String(value))),
                    .label(.for("rating-\(value)"), .ariaLabel(req.t("burger_map.stars", ["rating": String(value)])), .text("★"))
                )
            }
        )
        return .fieldset(
            .id("rating"), .class("field rating-field"), .attribute(named: "aria-describedby", value: "error-rating"),
            .legend(req.t("burger_map.write.rating")),
            stars,
            fieldError("rating")
        )
    }

    func reviewFields(_ req: Request) -> Node<HTML.BodyContext> {
        let text: Node<HTML.BodyContext> = .div(
            .class("field"),
            .label(.for("review-text"), .text(req.t("burger_map.write.text"))),
            .textarea(.id("review-text"), .name("text"), .attribute(named: "maxlength", value: "2000"), .attribute(named: "rows", value: "6"),
                      .attribute(named: "aria-describedby", value: "text-counter error-text")),
            .span(.id("text-counter"), .class("counter hint"), .text("0 / 2,000"))
        )
        return .group(
            textField(req, id: "review-title", label: "burger_map.write.review_title", max: 60, error: "error-title"),
            fieldError("title"),
            text,
            fieldError("text")
        )
    }

    func photoField(_ req: Request) -> Node<HTML.BodyContext> {
        let field: Node<HTML.BodyContext> = .div(
            .class("field photo-field"),
            .label(.for("photo-input"), .text(req.t("burger_map.write.photos"))),
            .input(.type(.file), .id("photo-input"), .attribute(named: "accept", value: "image/jpeg,image/png,image/webp"),
                   .attribute(named: "multiple", value: "multiple"), .attribute(named: "aria-describedby", value: "photo-counter error-photos")),
            .span(.id("photo-counter"), .class("counter hint"), .text("0 / 5")),
            .ol(.id("photo-previews"), .class("photo-previews"))
        )
        return .group(field, fieldError("photos"))
    }

    func textField(_ req: Request, id: String, label: String, max: Int, error: String) -> Node<HTML.BodyContext> {
        .div(
            .class("field"),
            .label(.for(id), .text(req.t(label))),
            .input(.type(.text), .id(id), .attribute(named: "maxlength", value: String(max)), .ariaDescribedBy(error))
        )
    }

    func numberField(_ req: Request, id: String, label: String) -> Node<HTML.BodyContext> {
        .div(
            .class("field"),
            .label(.for(id), .text(req.t(label))),
            .input(.type(.number), .id(id), .attribute(named: "step", value: "any"), .attribute(named: "readonly", value: "readonly"))
        )
    }
}
