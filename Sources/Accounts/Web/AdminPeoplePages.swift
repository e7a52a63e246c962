package import Fluent
import Foundation
import Platform
import Plot
import Vapor

/// The console's People tab (administrators only; 404 for everyone else): find an account by
/// email or nickname, see its standing, make it an administrator or not, suspend it or lift that
/// (with the reason it is told), delete it (asked first).
/// Nobody changes their own role or deletes themselves here, and the last administrator stays
/// one. Every change is audited.
struct AdminPeoplePages: RouteCollection {
    static let people: PagePath = "/admin/people"
    static let person: PagePath1 = "/admin/people/:user"
    static let role: PagePath1 = "/admin/people/:user/role"
    static let delete: PagePath1 = "/admin/people/:user/delete"
    static let suspension: PagePath1 = "/admin/people/:user/suspension"
    static let resetLink: PagePath1 = "/admin/people/:user/reset-link"

    func boot(routes: any RoutesBuilder) throws {
        let admin = routes.grouped(AdministratorsOnly())
        admin.get(Self.people, use: list)
        admin.get(Self.person, use: person)
        admin.post(Self.role, use: changeRole)
        admin.get(Self.delete, use: confirmDelete)
        admin.post(Self.delete, use: delete)
        admin.post(Self.suspension, use: suspend)
        admin.post(Self.resetLink, use: sendResetLink)
    }

    func list(req: Request) async throws -> Response {
        let query = String((req.query[String.self, at: "q"] ?? "").trimmingCharacters(in: .whitespaces).prefix(100))
        // The list shows addresses: a search is recorded (an empty one lists nobody).
        if !query.isEmpty { try await req.recordAccess("accounts.people.search", person: nil, subject: query) }
        // Kept per address (each search its own) until an account is made, changed or deleted,
        // here or on another instance.
        let version = req.application.accountsEnvironment.sessions.accountsVersion
        return try await Layout.keptPage(req, version: version) {
            let found = try await req.accounts.store.find(query)
            let main: Node<HTML.BodyContext> = .group(
                .h1(.text(req.t("admin.people.title"))),
                .form(
                    .method(.get), .action(Self.people()), .class("admin-filters"), .attribute(named: "role", value: "search"),
                    .label(.for("people-query"), .text(req.t("admin.people.find"))),
                    .input(.type(.search), .id("people-query"), .name("q"), .value(query), .attribute(named: "placeholder", value: req.t("admin.people.find_hint"))),
                    .button(.type(.submit), .class("button small"), .text(req.t("admin.people.search")))
                ),
                found.isEmpty ? .p(.class("muted"), .id("people-empty"), .text(req.t("admin.people.none"))) : .empty,
                .ul(.class("catalog-list"), .id("people"), .forEach(found) { person in
                    .li(.a(
                        .class("catalog-row"), .href(Self.person(person.id)),
                        .span(.class("catalog-title"), .text(person.nickname)),
                        .span(.class("catalog-price"), .text(person.role == .admin ? req.t("me.admin") : "")),
                        .span(.class("catalog-stock"), .text(person.email + (person.createdAt.map { " · " + PageDates.dotted($0) } ?? "")))
                    ))
                })
            )
            return AdminConsole.parts(req, tab: .people, title: req.t("admin.people.title"), main: main)
        }
    }

    private func account(_ req: Request) async throws -> User {
        guard let id = req.parameters.get("user").flatMap(UUID.init(uuidString:)), let user = try await req.accounts.store.user(id) else {
            throw AppError.notFound("user_not_found")
        }
        return user
    }

    func person(req: Request) async throws -> Response {
        let notice = req.query[String.self, at: "notice"] == "reset_link_sent" ? "admin.people.reset_link_sent" : nil
        return try await personPage(req, error: nil, notice: notice)
    }

    private func personPage(_ req: Request, error: AppError?, notice: String? = nil) async throws -> Response {
        let user = try await account(req)
        let id = try user.requireID()
        let me = try req.requireAdmin().id == id
        try await req.recordAccess("accounts.person.view", person: id, subject: user.nickname)
        let featureSections = try await req.application.adminPerson.parts(req)
        let main: Node<HTML.BodyContext> = .group(
            .p(.a(.href(Self.people()), .text("← " + req.t("admin.people.title")))),
            .h1(.id("person-name"), .text(user.nickname)),
            Layout.formError(req, error),
            notice.map { .p(.class("notice"), .id("person-notice"), .role("status"), .text(req.t($0))) } ?? .empty,
            .section(
                .class("card stack"),
                .dl(
                    .class("about-list"),
                    .dt(.text(req.t("field.email"))), .dd(.id("person-email"), .text(user.email)),
                    .dt(.text(req.t("admin.people.role"))), .dd(.id("person-role"), .text(req.t("admin.people.role.\(user.role.rawValue)"))),
                    .dt(.text(req.t("admin.people.joined"))), .dd(.text(user.createdAt.map { PageDates.medium($0, req.language) } ?? "")),
                    .dt(.text(req.t("field.language"))), .dd(.text(user.language?.rawValue ?? "—"))
                ),
                me ? .p(.class("muted"), .text(req.t("admin.people.yourself"))) : .group(
                    .form(
                        .action(Self.role(id)), .method(.post), Layout.csrfField(req),
                        .input(.type(.hidden), .name("role"), .value(user.role == .admin ? Role.user.rawValue : Role.admin.rawValue)),
                        .button(.type(.submit), .class("button wide"), .id("change-role"),
                                .text(req.t(user.role == .admin ? "admin.people.make_user" : "admin.people.make_admin")))
                    ),
                    user.suspendedAt != nil ? .empty : .form(
                        .action(Self.resetLink(id)), .method(.post), Layout.csrfField(req),
                        .button(.type(.submit), .class("button wide"), .id("send-reset-link"), .text(req.t("admin.people.send_reset_link")))
                    ),
                    .a(.class("button danger wide"), .id("delete-person"), .href(Self.delete(id)), .text(req.t("admin.people.delete")))
                )
            ),
            me || user.role == .admin ? .empty : .section(
                .class("card stack"), .ariaLabelledBy("suspension-title"),
                .h2(.id("suspension-title"), .text(req.t("admin.people.suspension"))),
                user.suspendedAt.map { since in
                    .p(.class("caution"), .id("person-suspended"), .text(req.t("admin.people.suspended", [
                        "time": PageDates.medium(since, req.language), "reason": user.suspensionReason ?? "",
                    ])))
                } ?? .p(.class("muted"), .text(req.t("admin.people.suspend_lead"))),
                .form(
                    .action(Self.suspension(id)), .method(.post), .class("stack"), Layout.csrfField(req),
                    AdminModeration.reasonField(req, id: "suspension-reason"),
                    .input(.type(.hidden), .name("decision"), .value(user.suspendedAt == nil ? "suspend" : "lift")),
                    .button(.type(.submit), .class(user.suspendedAt == nil ? "button danger wide" : "button wide"), .id("suspension-submit"),
                            .text(req.t(user.suspendedAt == nil ? "admin.people.suspend" : "admin.people.lift")))
                )
            ),
            .group(featureSections)
        )
        return AdminConsole.page(req, tab: .people, title: user.nickname, status: error?.status ?? .ok, main: main)
    }

    struct RoleForm: Content { let role: String? }

    func changeRole(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let user = try await account(req)
        let form = try req.content.decode(RoleForm.self)
        return try await req.submitForm {
            guard let role = form.role.flatMap(Role.init(rawValue:)) else { throw AppError.badRequest("invalid_field", ["field": "role"]) }
            try await req.accounts.changeRole(of: user, to: role, by: try admin.requireID())
            return Layout.redirect(to: Self.person(try user.requireID()))
        } onRuleBroken: { try await personPage(req, error: $0) }
    }

    /// "Send a reset link": mailed to the person (audited); the page says it went.
    func sendResetLink(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let user = try await account(req)
        do {
            try await req.accounts.operatorResetLink(for: user, by: try admin.requireID(), mailing: true)
        } catch let error as AppError where error.status.code < 500 || error.code == "mail_unavailable" {
            return try await personPage(req, error: error)
        }
        return Layout.redirect(to: Self.person(try user.requireID()) + "?notice=reset_link_sent")
    }

    struct SuspensionForm: Content {
        /// `suspend` or `lift`.
        let decision: String?
        let reason: String?
    }

    func suspend(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let user = try await account(req)
        let form = try req.content.decode(SuspensionForm.self)
        return try await req.submitForm {
            guard let decision = form.decision, ["suspend", "lift"].contains(decision) else { throw AppError.badRequest("invalid_field", ["field": "decision"]) }
            let reason = try AdminModeration.reason(form.reason)
            try await req.accounts.setSuspension(of: user, suspended: decision == "suspend", reason: reason, by: try admin.requireID())
            return Layout.redirect(to: Self.person(try user.requireID()))
        } onRuleBroken: { try await personPage(req, error: $0) }
    }

    func confirmDelete(req: Request) async throws -> Response {
        let user = try await account(req)
        let id = try user.requireID()
        return AdminConsole.page(req, tab: .people, title: req.t("admin.people.delete"), main: .section(
            .class("card narrow stack"), .ariaLabelledBy("delete-title"),
            .h1(.id("delete-title"), .text(req.t("admin.people.delete_title", ["nickname": user.nickname]))),
            .p(.id("delete-consequence"), .text(req.t("admin.people.delete_body"))),
            .form(
                .action(Self.delete(id)), .method(.post), .class("stack"), Layout.csrfField(req),
                .button(.type(.submit), .class("button danger wide"), .id("confirm-delete"), .text(req.t("admin.people.delete_confirm")))
            ),
            .a(.class("button wide"), .href(Self.person(id)), .text(req.t("admin.people.keep")))
        ))
    }

    func delete(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let user = try await account(req)
        return try await req.submitForm {
            try await req.accounts.removeByOperator(user, by: try admin.requireID())
            return Layout.redirect(to: Self.people())
        } onRuleBroken: { try await personPage(req, error: $0) }
    }
}

extension AccountService {
    /// An administrator (nil: an operator at the shell) makes an account an administrator or not;
    /// not their own (409 `cannot_change_own_account`), and never the last administrator's. Audited.
    package func changeRole(of user: User, to role: Role, by admin: UUID?) async throws {
        let id = try user.requireID()
        guard id != admin else { throw AppError.conflict("cannot_change_own_account") }
        guard user.role != role else { return }
        if user.role == .admin, try await store.administratorCount() <= 1 { throw AppError.conflict("last_administrator") }
        let before = user.role
        user.role = role
        try await store.save(user, audit: AuditEntry(actorID: admin, action: "accounts.role.change", subjectType: "account", subjectID: id.uuidString,
                                                     before: ["role": before.rawValue], after: ["role": role.rawValue], at: environment.now()))
    }

    /// An administrator suspends an account (it cannot sign in; every session of it ends, its live
    /// sockets close) or lifts the suspension, with the reason it is told at sign-in; not their own,
    /// not an administrator's (409 `cannot_suspend_administrator`: take the role first). Audited;
    /// `admin` nil is an operator at the shell.
    package func setSuspension(of user: User, suspended: Bool, reason: String, by admin: UUID?) async throws {
        let id = try user.requireID()
        guard id != admin else { throw AppError.conflict("cannot_change_own_account") }
        if suspended, user.role == .admin { throw AppError.conflict("cannot_suspend_administrator") }
        let before = user.suspendedAt != nil
        guard before != suspended else { return }
        let now = environment.now()
        _ = try await store.setSuspension(of: user, reason: suspended ? reason : nil, at: now, audit: AuditEntry(
            actorID: admin, action: suspended ? "accounts.account.suspend" : "accounts.account.unsuspend", subjectType: "account", subjectID: id.uuidString,
            before: ["suspended": String(before)], after: ["suspended": String(suspended), "reason": reason], at: now))
    }

    /// An administrator deletes an account and everything of it (as withdrawing does); not their
    /// own, not the last administrator. Audited (the nickname kept in the entry, the account gone).
    func removeByOperator(_ user: User, by admin: UUID) async throws {
        let id = try user.requireID()
        guard id != admin else { throw AppError.conflict("cannot_change_own_account") }
        if user.role == .admin, try await store.administratorCount() <= 1 { throw AppError.conflict("last_administrator") }
        try await remove(user, audit: AuditEntry(actorID: admin, action: "accounts.account.delete", subjectType: "account", subjectID: id.uuidString,
                                                 before: ["nickname": user.nickname], after: nil, at: environment.now()))
    }
}
