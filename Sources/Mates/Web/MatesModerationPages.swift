import Accounts
import Fluent
import FluentKit
import Foundation
import Notifications
import Platform
import Plot
import Vapor

/// Mates' part of the console's Moderation tab: who is suspended by reports, the reports, and the
/// decision: lift (reports so far stop counting) or keep, with a reason the person is told. Audited.
struct MatesModerationPages: RouteCollection {
    static let suspension: PagePath1 = "/admin/moderation/mates/:user"

    func boot(routes: any RoutesBuilder) throws {
        routes.grouped(AdministratorsOnly()).post(Self.suspension, use: decide)
    }

    /// `decision`: `lift` or `keep`.
    func decide(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let user = req.parameters.get("user").flatMap(UUID.init(uuidString:))
        return try await AdminModeration.decide(req, choices: ["lift", "keep"], anchor: "moderation-mates") { decision, reason in
            guard let user else { throw AppError.notFound("user_not_found") }
            try await req.mates.decideSuspension(of: user, lift: decision == "lift", reason: reason, by: try admin.requireID())
        }
    }

    static func section(_ req: Request) async throws -> Node<HTML.BodyContext> {
        let suspensions = try await req.mates.store.suspensions()
        var nicknames: [UUID: String] = [:]
        for suspension in suspensions { nicknames[suspension.user] = try await AccountStore.person(suspension.user, on: req.db)?.nickname }
        return .section(
            .class("card stack moderation-section"), .id("moderation-mates"), .ariaLabelledBy("moderation-mates-title"),
            .h2(.id("moderation-mates-title"), .text(req.t("admin.moderation.mates"))),
            suspensions.isEmpty ? .p(.class("muted"), .text(req.t("admin.moderation.mates_empty"))) : .empty,
            .ul(.class("moderation-list"), .forEach(suspensions) { suspension in
                let id = suspension.user.uuidString.lowercased()
                return .li(
                    .class("moderation-item"), .data(named: "user", value: id),
                    .p(.strong(.text(nicknames[suspension.user] ?? "—"))),
                    .p(.class("caution"), .text(req.t("admin.moderation.suspended", ["time": PageDates.medium(suspension.since, req.language),
                                                                                    "count": String(suspension.reports)]))),
                    .p(.class("muted"), .text(suspension.lastCategories.map { req.t("mates.report.category.\($0)") }.joined(separator: ", ")
                                              + (suspension.lastComment.map { $0.isEmpty ? "" : " · " + $0 } ?? ""))),
                    .form(
                        .action(Self.suspension(suspension.user)), .method(.post), .class("stack moderation-form"),
                        Layout.csrfField(req),
                        AdminModeration.reasonField(req, id: "reason-\(id)"),
                        .div(.class("moderation-actions"),
                             .button(.type(.submit), .name("decision"), .value("keep"), .class("button danger"), .text(req.t("admin.moderation.keep_suspended"))),
                             .button(.type(.submit), .name("decision"), .value("lift"), .class("button"), .text(req.t("admin.moderation.lift"))))
                    )
                )
            })
        )
    }
}

extension MatesService {
    /// An operator decides on a suspension: lifted (reports so far stop counting) or kept, and the
    /// person is told why; audited. 404 for someone not suspended.
    func decideSuspension(of user: UUID, lift: Bool, reason: String, by admin: UUID) async throws {
        guard try await store.isSuspended(user) else { throw AppError.notFound("user_not_found") }
        if lift {
            _ = try await liftSuspension(of: user, by: admin, reason: reason)
        } else {
            try await AuditLog(database: database).record(suspensionDecision(of: user, lift: false, reason: reason, by: admin))
        }
        try await inbox.post(NotificationDraft(recipient: user, actor: nil, service: "mates",
                                               kind: lift ? "moderation_mates_lifted" : "moderation_mates_kept",
                                               link: MatesPath.home(), excerpt: reason))
    }
}
