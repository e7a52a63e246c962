import Accounts
import Platform
import Plot
import Vapor

/// The room of a group game as the lobby and the waiting room show it: who is in, who answered.
/// The page draws it once; `room.js` keeps it live from the group's socket, drawing the same
/// markup (the class names and `data-member` here are what the script writes too).
extension MenuGamePages {
    static func room(_ req: Request, status: GroupStatus) -> Node<HTML.BodyContext> {
        let signedIn = req.auth.get(User.self) != nil
        let yours = status.members.first { $0.id == status.you }
        return .section(
            .class("room"), .id("room"), .ariaLabelledBy("room-title"),
            .h2(.id("room-title"), .text(req.t("menu_game.room.title") + " "),
                .span(.class("room-size"), .id("room-size"), .text("\(status.members.count)"))),
            .ul(.class("room-list"), .id("room-list"),
                .forEach(status.members) { memberItem(req, $0, you: status.you) }),
            .p(.class("muted room-empty"), .id("room-empty"), status.members.isEmpty ? .empty : .hidden(true), .text(req.t("menu_game.room.empty"))),
            .p(.class("visually-hidden"), .id("room-news"), .role("status")),
            signedIn ? .empty : guestNameForm(req, current: yours),
            signedIn ? .empty : .p(.class("muted room-hint"),
                                   .a(.href(AccountPath.logIn() + "?next=" + req.url.path), .text(req.t("menu_game.room.sign_in_hint"))))
        )
    }

    private static func memberItem(_ req: Request, _ member: GroupMember, you: UUID?) -> Node<HTML.ListContext> {
        let name = member.displayName { req.t($0, $1) }
        let avatar: Node<HTML.BodyContext> = member.profileImageURL.map { .img(.class("avatar small"), .src($0), .alt("")) }
            ?? .span(.class("avatar small placeholder"), .ariaHidden(true), .text(member.name.map { String($0.prefix(1)) } ?? String(member.guestNumber ?? 0)))
        return .li(
            .class("room-member" + (member.answered ? " answered" : "")), .data(named: "member", value: member.id.uuidString),
            avatar,
            .span(.class("member-name"), .text(name)),
            member.isGuest && member.name != nil ? .span(.class("tag"), .text(req.t("menu_game.room.guest_tag"))) : .empty,
            member.isHost ? .span(.class("tag"), .text(req.t("menu_game.room.host"))) : .empty,
            member.id == you ? .span(.class("tag you"), .text(req.t("menu_game.room.you"))) : .empty,
            .span(.class("member-state"), .text(member.answered ? "✅ " + req.t("menu_game.room.answered") : "⏳ " + req.t("menu_game.room.choosing")))
        )
    }

    /// A guest names themself for the others (kept for this group only).
    private static func guestNameForm(_ req: Request, current: GroupMember?) -> Node<HTML.BodyContext> {
        .form(
            .class("guest-name-form"), .id("guest-name-form"), .novalidate(),
            .div(
                .class("field"),
                .label(.for("guest-name"), .text(req.t("menu_game.room.name_label"))),
                .div(
                    .class("inline-field"),
                    .selfClosedElement(named: "input", attributes: [
                        .id("guest-name"), .name("guestName"), .type(.text), .value(current?.name ?? ""),
                        .attribute(named: "placeholder", value: current.map { $0.displayName { req.t($0, $1) } } ?? req.t("menu_game.room.guest_tag")),
                        .attribute(named: "maxlength", value: String(MenuGameService.guestNameLimit)), .attribute(named: "autocomplete", value: "nickname"),
                        .ariaDescribedBy("guest-name-status"),
                    ]),
                    .button(.type(.submit), .class("button"), .id("save-guest-name"), .text(req.t("menu_game.room.name_save")))
                ),
                .p(.class("hint"), .id("guest-name-status"), .role("status"))
            )
        )
    }

    /// The room's words the script needs.
    static let roomStringKeys = [
        "menu_game.room.guest", "menu_game.room.guest_tag", "menu_game.room.answered", "menu_game.room.choosing", "menu_game.room.host",
        "menu_game.room.you", "menu_game.room.joined", "menu_game.room.answered_now", "menu_game.room.name_saved",
    ]
}
