import Plot
import Vapor

/// The two views every page's scripts share when a request cannot go through (`shared/api.js`
/// shows them): the network is gone or the server failed — "try again" sends the same request,
/// nothing reloads — and the session ended or a visitor needs to sign in — "sign in" comes back
/// to the same page. In the frame of every page, hidden until a script needs one.
extension Layout {
    static func troubleViews(_ request: Request) -> Node<HTML.BodyContext> {
        .group(
            .div(
                .class("trouble-view"), .id("network-error"), .hidden(true), .role("alertdialog"),
                .ariaLabelledBy("network-error-title"), .ariaDescribedBy("network-error-body"), .attribute(named: "aria-modal", value: "true"),
                .div(
                    .class("trouble-card"),
                    .span(.class("trouble-emoji"), .ariaHidden(true), .text("📡")),
                    .h2(.id("network-error-title"), .text(request.t("layout.network.title"))),
                    .p(.id("network-error-body"), .text(request.t("layout.network.body"))),
                    .button(.type(.button), .class("button primary wide"), .id("network-retry"), .text(request.t("layout.network.retry")))
                )
            ),
            .div(
                .class("trouble-view"), .id("session-ended"), .hidden(true), .role("alertdialog"),
                .ariaLabelledBy("session-ended-title"), .ariaDescribedBy("session-ended-body"), .attribute(named: "aria-modal", value: "true"),
                .div(
                    .class("trouble-card"),
                    .span(.class("trouble-emoji"), .ariaHidden(true), .text("🔑")),
                    .h2(.id("session-ended-title"), .text(request.t("layout.session.title"))),
                    // The script writes which of the two it is (ended, or never signed in).
                    .p(.id("session-ended-body"), .data(named: "ended", value: request.t("layout.session.ended")),
                       .data(named: "required", value: request.t("layout.session.required"))),
                    // The script adds `?next=` with the page's path and query when it shows the view.
                    .a(.class("button primary wide"), .id("session-sign-in"), .href(SitePath.logIn()), .text(request.t("layout.session.sign_in"))),
                    .button(.type(.button), .class("button wide"), .id("session-dismiss"), .text(request.t("layout.session.dismiss")))
                )
            )
        )
    }
}
