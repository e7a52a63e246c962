import Accounts
import FluentKit
import Foundation
import Platform
import Plot
import Vapor

/// `/mates/start`: the onboarding, then verifying a phone number or an email address with a
/// 6-digit code (the script `verify.js` sends it, counts down and confirms through the API).
extension MatesPages {
    func startPage(req: Request) async throws -> Response {
        let user = try req.requireUser().requireID()
        // Someone already verified has nothing to do here. (Only "not verified" shows the page:
        // a database that cannot answer is an error, not a new person.)
        do {
            _ = try await req.mates.standing(user)
            return Layout.redirect(to: Tab.home.path)
        } catch let error as AppError where error.code == "verification_required" {}
        // Phones first when a text-message provider is configured; otherwise email first, and the
        // phone only on a development server (its codes go to the log).
        let mates = req.application.settings.mates
        let offered = (mates.sms != nil ? ["phone", "email"] : ["email", "phone"])
            .filter { $0 == "phone" ? mates.offersPhoneCodes : mates.offersEmailCodes }
        // Neither (production without SMTP_URL or SMS_URL): the email form, whose send says why it cannot.
        let channels = offered.isEmpty ? ["email"] : offered
        let email = channels[0] == "email"
        // Made only when the page is not kept (the settings it follows stay while the server runs).
        let body = { () -> Node<HTML.BodyContext> in
            let sendForm: Node<HTML.BodyContext> = .plainForm(
                .id("send-form"), .class("stack"), .attribute(named: "novalidate", value: "novalidate"),
                .fieldset(
                    .class("channel-choice"),
                    .legend(req.t("mates.verify.channel"), visuallyHidden: true),
                    .forEach(channels) { channelOption(req, $0, checked: $0 == channels[0]) }
                ),
                mates.sms == nil && mates.offersPhoneCodes ? .p(.class("hint"), .id("codes-in-log"), .text(req.t("mates.verify.codes_in_log"))) : .empty,
                .div(
                    .class("field"),
                    .label(.for("destination"), .id("destination-label"), .text(req.t(email ? "mates.verify.email_label" : "mates.verify.phone_label"))),
                    .input(.id("destination"), .name("destination"), .type(email ? .email : .tel), .required(true),
                           .attribute(named: "autocomplete", value: email ? "email" : "tel"), .attribute(named: "inputmode", value: email ? "email" : "tel"),
                           .attribute(named: "maxlength", value: "254"), .placeholder(email ? "name@example.com" : "010-1234-5678"),
                           .attribute(named: "aria-describedby", value: "send-error")),
                    .p(.class("field-error"), .id("send-error"), .role("alert"), .attribute(named: "hidden", value: "hidden"))
                ),
                .button(.type(.submit), .id("send-code"), .class("button primary wide"), .text(req.t("mates.verify.send")))
            )
            let codeField: Node<HTML.BodyContext> = .div(
                .class("field"),
                .label(.for("code"), .text(req.t("mates.verify.code_label"))),
                .div(
                    .class("code-row"),
                    .input(.id("code"), .name("code"), .type(.text), .required(true),
                           .attribute(named: "inputmode", value: "numeric"), .attribute(named: "autocomplete", value: "one-time-code"),
                           .attribute(named: "pattern", value: "[0-9]{6}"), .attribute(named: "maxlength", value: "6"),
                           .attribute(named: "aria-describedby", value: "countdown code-error")),
                    .span(.id("countdown"), .class("countdown"), .attribute(named: "aria-live", value: "off"))
                ),
                .p(.class("field-error"), .id("code-error"), .role("alert"), .attribute(named: "hidden", value: "hidden"))
            )
            let confirmForm: Node<HTML.BodyContext> = .plainForm(
                .id("confirm-form"), .class("stack"), .attribute(named: "novalidate", value: "novalidate"), .attribute(named: "hidden", value: "hidden"),
                .p(.id("sent-to"), .class("notice"), .role("status")),
                codeField,
                .button(.type(.submit), .id("confirm-code"), .class("button primary wide"), .text(req.t("mates.verify.confirm"))),
                .button(.type(.button), .id("resend-code"), .class("button wide"), .text(req.t("mates.verify.resend"))),
                .button(.type(.button), .id("change-destination"), .class("link-button"), .text(req.t("mates.verify.change")))
            )
            let onboarding: Node<HTML.BodyContext> = .section(
                .class("card mates-intro"), .id("onboarding"),
                .span(.class("intro-emoji"), .ariaHidden(true), .text("🌱")),
                .h1(.text(req.t("mates.start.title"))),
                onboardingSteps(req)
            )
            let verify: Node<HTML.BodyContext> = .section(
                .class("card verify-card"), .ariaLabelledBy("verify-title"),
                .h2(.id("verify-title"), .text(req.t("mates.verify.title"))),
                .p(.class("muted"), .text(req.t("mates.verify.lead"))),
                sendForm,
                confirmForm
            )
            return .group(onboarding, verify)
        }
        return try await page(
            req, title: req.t("mates.start.title"), tab: nil, script: "verify", withTabs: false,
            config: ["codeSeconds": Int(MatesService.codeLifetime), "resendSeconds": Int(MatesService.resendInterval)],
            main: body
        )
    }

    private func channelOption(_ req: Request, _ channel: String, checked: Bool) -> Node<HTML.BodyContext> {
        .label(
            .class("channel-option"),
            .input(.type(.radio), .name("channel"), .value(channel), .id("channel-\(channel)"),
                   .attribute(named: "checked", value: checked ? "checked" : nil)),
            .span(.text(req.t("mates.verify.channel.\(channel)")))
        )
    }
}
