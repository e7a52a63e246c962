import Platform
import Plot
import Vapor

/// The devices card on `/me` ("로그인된 기기") and its two forms: one device signed out, or every
/// one but this browser. The rules are `AccountService+Devices`'s, as on the API.
extension AccountPages {
    /// "로그인된 기기": each live session, this one marked; the others signed out one by one or at once.
    /// A signed-in device as the card shows it: "3분 전" already worded, so a kept `/me` follows it.
    struct DeviceShown: Hashable, Sendable {
        let id: UUID
        let device: String?
        let current: Bool
        let seen: String
    }

    func devicesShown(_ req: Request, _ devices: [AccountService.SignedInDevice]) -> [DeviceShown] {
        let now = req.application.accountsEnvironment.now()
        return devices.map { device in
            DeviceShown(id: device.id, device: device.device, current: device.current,
                        seen: PageDates.relative(device.lastSeenAt ?? now, now: now, req.language, translate: req.t))
        }
    }

    func devicesSection(_ req: Request, _ devices: [DeviceShown]) -> Node<HTML.BodyContext> {
        let others = devices.filter { !$0.current }.count
        return .section(
            .class("card"), .id("devices"),
            .h2(.text(req.t("me.devices"))),
            .p(.class("muted"), .text(req.t("me.devices_explain"))),
            .ul(
                .class("device-list"),
                .forEach(devices) { device in
                    .li(
                        .class(device.current ? "device current" : "device"), .attribute(named: "data-session", value: device.id.uuidString.lowercased()),
                        .div(
                            .strong(.text(device.device ?? req.t("me.device_unknown"))),
                            device.current ? .span(.class("badge"), .text(req.t("me.device_this"))) : .empty,
                            .p(.class("muted"), .text(req.t("me.device_seen", ["when": device.seen])))
                        ),
                        device.current ? .empty : .form(
                            .action(AccountPath.endDevice()), .method(.post),
                            Layout.csrfField(req),
                            .input(.type(.hidden), .name("session"), .value(device.id.uuidString)),
                            .button(.type(.submit), .class("button small"),
                                    .attribute(named: "aria-label", value: req.t("me.device_sign_out_named", ["device": device.device ?? req.t("me.device_unknown")])),
                                    .text(req.t("nav.logout")))
                        )
                    )
                }
            ),
            others == 0 ? .empty : .form(
                .action(AccountPath.signOutOthers()), .method(.post),
                Layout.csrfField(req),
                .button(.type(.submit), .class("button"), .id("sign-out-others"), .text(req.t("me.sign_out_others")))
            )
        )
    }

    struct DeviceForm: Content { package var session: String? }

    func endDevice(req: Request) async throws -> Response {
        let user = try req.requireUser()
        let form = try req.content.decode(DeviceForm.self)
        return try await respondOnMyPage(req, user: user, notice: "device_signed_out") {
            guard let id = form.session.flatMap(UUID.init(uuidString:)) else { throw AppError.notFound("session_not_found") }
            try await req.accounts.endSession(id, of: user)
        }
    }

    func signOutOthers(req: Request) async throws -> Response {
        let user = try req.requireUser()
        return try await respondOnMyPage(req, user: user, notice: "others_signed_out") {
            _ = try await req.accounts.signOutOthers(user, keeping: req.signedInAccount?.session)
        }
    }
}
