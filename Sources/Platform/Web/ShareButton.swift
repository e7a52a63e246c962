package import Plot
package import Vapor

/// "🔗 공유하기" under something worth sending to a friend (a place, a review, a dish): the
/// phone's share sheet with the page's public address where the browser has one, else the link
/// copied and said so. `Public/js/shared/share-button.js` (imported by the page's script) wires every such button; without
/// scripts the button stays hidden (it could do nothing).
package enum ShareButton {
    /// `path` is the page's own (made absolute with `PUBLIC_URL`, the address its preview card names).
    package static func node(_ req: Request, path: String, title: String, text: String, id: String = "share") -> Node<HTML.BodyContext> {
        .group(
            .button(.type(.button), .class("button share-button"), .id(id), .attribute(named: "hidden", value: "hidden"),
                    .data(named: "share-url", value: req.application.settings.publicURL + path), .data(named: "share-title", value: title),
                    .data(named: "share-text", value: text), .data(named: "copied", value: req.t("share.copied")),
                    .text("🔗 " + req.t("share.button"))),
            .p(.class("copy-status"), .id("\(id)-status"), .attribute(named: "role", value: "status"))
        )
    }
}
