import Accounts
import Fluent
import FluentKit
import Foundation
import Notifications
import Platform
import Plot
import Vapor

/// The map's part of the console's Moderation tab: reviews with reports nobody has decided on and
/// hidden reviews (hide or show again, with a reason the author is told), and place suggestions
/// (set aside once read). Every decision is written to the audit log.
struct BurgerMapModerationPages: RouteCollection {
    static let review: PagePath1 = "/admin/moderation/reviews/:review"
    static let suggestion: PagePath1 = "/admin/moderation/suggestions/:suggestion/dismiss"

    func boot(routes: any RoutesBuilder) throws {
        let admin = routes.grouped(AdministratorsOnly())
        admin.post(Self.review, use: decide)
        admin.post(Self.suggestion, use: dismiss)
    }

    /// `decision`: `hide` or `restore`.
    func decide(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let review = req.parameters.get("review").flatMap(UUID.init(uuidString:))
        return try await AdminModeration.decide(req, choices: ["hide", "restore"], anchor: "moderation-reviews") { decision, reason in
            guard let review else { throw AppError.notFound("review_not_found") }
            try await req.burgerMap.moderate(review: review, hide: decision == "hide", reason: reason, by: try admin.requireID())
        }
    }

    func dismiss(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        return try await req.submitForm {
            guard let id = req.parameters.get("suggestion").flatMap(UUID.init(uuidString:)) else { throw AppError.notFound("suggestion_not_found") }
            try await req.burgerMap.dismissSuggestion(id, by: try admin.requireID())
            return Layout.redirect(to: AdminConsole.Tab.moderation.path + "#moderation-suggestions")
        } onRuleBroken: { try await AdminModeration.page(req, error: $0) }
    }

    /// The map's section of the tab.
    static func section(_ req: Request) async throws -> Node<HTML.BodyContext> {
        let service = req.burgerMap
        let queue = try await service.store.moderationQueue()
        let suggestions = try await service.store.suggestions(CursorPageRequest(limit: 20)).items
        var authors: [UUID: String] = [:]
        for id in Set(queue.map(\.authorID)) { authors[id] = try await AccountStore.person(id, on: req.db)?.nickname }
        return .group(
            .section(
                .class("card stack moderation-section"), .id("moderation-reviews"), .ariaLabelledBy("moderation-reviews-title"),
                .h2(.id("moderation-reviews-title"), .text(req.t("admin.moderation.reviews"))),
                queue.isEmpty ? .p(.class("muted"), .text(req.t("admin.moderation.reviews_empty"))) : .empty,
                .ul(.class("moderation-list"), .forEach(queue) { item in
                    .li(
                        .class("moderation-item"), .data(named: "review", value: item.id.uuidString.lowercased()),
                        .p(.a(.href(MapPath.review(item.id)), .text(item.title)), .text(" · " + (authors[item.authorID] ?? ""))),
                        .p(.class(item.hiddenAt == nil ? "muted" : "caution"),
                           .text(req.t(item.hiddenAt == nil ? "admin.moderation.reported" : "admin.moderation.hidden", ["count": String(item.openReports)]))),
                        item.lastReason.map { .p(.class("muted"), .text(req.t("admin.moderation.last_reason", ["reason": $0]))) } ?? .empty,
                        .form(
                            .action(Self.review(item.id)), .method(.post), .class("stack moderation-form"),
                            Layout.csrfField(req),
                            AdminModeration.reasonField(req, id: "reason-\(item.id.uuidString.lowercased())"),
                            .div(.class("moderation-actions"),
                                 .button(.type(.submit), .name("decision"), .value("hide"), .class("button danger"),
                                         .text(req.t(item.hiddenAt == nil ? "admin.moderation.hide" : "admin.moderation.keep_hidden"))),
                                 .button(.type(.submit), .name("decision"), .value("restore"), .class("button"),
                                         .text(req.t(item.hiddenAt == nil ? "admin.moderation.dismiss_reports" : "admin.moderation.show_again"))))
                        )
                    )
                })
            ),
            .section(
                .class("card stack moderation-section"), .id("moderation-suggestions"), .ariaLabelledBy("moderation-suggestions-title"),
                .h2(.id("moderation-suggestions-title"), .text(req.t("admin.moderation.suggestions"))),
                suggestions.isEmpty ? .p(.class("muted"), .text(req.t("admin.moderation.suggestions_empty"))) : .empty,
                .ul(.class("moderation-list"), .forEach(suggestions) { suggestion in
                    .li(
                        .class("moderation-item"),
                        .p(.a(.href(MapPath.place(suggestion.placeID)), .text(suggestion.place?.name ?? suggestion.name))),
                        .p(.class("muted"), .text(req.t("admin.moderation.suggested", ["address": suggestion.address, "phone": suggestion.phone ?? "—",
                                                                                       "reasons": suggestion.reasons.joined(separator: ", ")]))),
                        suggestion.place.map { .p(.class("muted"), .text(req.t("admin.moderation.stored", ["address": $0.address]))) } ?? .empty,
                        .form(.action(Self.suggestion(suggestion.id)), .method(.post), Layout.csrfField(req),
                              .button(.type(.submit), .class("button small"), .text(req.t("admin.moderation.set_aside"))))
                    )
                })
            )
        )
    }
}

extension BurgerMapService {
    /// An operator decides on a review: hidden (reports upheld) or shown (reports set aside), and
    /// its author is told why; audited.
    func moderate(review id: UUID, hide: Bool, reason: String, by admin: UUID) async throws {
        guard let review = try await store.review(id) else { throw AppError.notFound("review_not_found") }
        // The decision and its audit entry are one transaction: neither is kept without the other.
        try await store.transaction { store in
            if hide {
                _ = try await store.hideByOperator(review)
            } else if review.hidden {
                _ = try await store.restore(review)
            } else {
                try await store.dismissReports(of: id)
            }
            try await AuditLog(database: store.database).record(AuditEntry(
                actorID: admin, action: hide ? "burger_map.review.hide" : "burger_map.review.restore", subjectType: "burger_review", subjectID: id.uuidString,
                before: ["hidden": String(review.hidden)], after: ["hidden": String(hide), "reason": reason], at: environment.now()))
        }
        try await inbox.post(NotificationDraft(recipient: review.authorID, actor: nil, service: Self.service,
                                               kind: hide ? "moderation_review_hidden" : "moderation_review_restored",
                                               subjectID: id, link: MapPath.review(id), excerpt: reason))
    }

    /// Sets a place suggestion aside once an operator read it; audited.
    func dismissSuggestion(_ id: UUID, by admin: UUID) async throws {
        try await store.transaction { store in
            guard try await store.removeSuggestion(id) else { throw AppError.notFound("suggestion_not_found") }
            try await AuditLog(database: store.database).record(AuditEntry(actorID: admin, action: "burger_map.suggestion.dismiss",
                                                                           subjectType: "burger_place_suggestion", subjectID: id.uuidString, before: nil, after: nil,
                                                                           at: environment.now()))
        }
    }
}
