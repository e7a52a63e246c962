import Foundation
import NIOConcurrencyHelpers
package import Plot
package import Vapor

/// The operator's console (`/admin`, administrators only; everyone else gets 404): one frame of
/// tabs over the pages each feature adds (today's figures, orders, catalog, moderation, people,
/// the audit log), so whoever runs the server does it from pages rather than a terminal.
package enum AdminConsole {
    package enum Tab: String, CaseIterable, Sendable {
        case today, orders, catalog, moderation, people, audit

        package var path: String { self == .today ? "/admin" : "/admin/\(rawValue)" }
        var emoji: String {
            switch self {
            case .today: return "📋"
            case .orders: return "📦"
            case .catalog: return "🍱"
            case .moderation: return "🚩"
            case .people: return "👥"
            case .audit: return "🧾"
            }
        }
    }

    package static let stylesheet = "/css/admin.css"

    /// A console page: the tabs (this one marked current), then `main`.
    package static func page(_ req: Request, tab: Tab, title: String, status: HTTPResponseStatus = .ok,
                             stylesheets: [String] = [], main: Node<HTML.BodyContext>) -> Response {
        let parts = parts(req, tab: tab, title: title, status: status, stylesheets: stylesheets, main: main)
        return Layout.page(req, title: parts.title, status: parts.status, extras: parts.extras, main: parts.main)
    }

    /// A console page kept at `version` (`Layout.keptPage(_:version:read:)`): `read` reads and
    /// makes its title and body only when the page is not kept at that version. For a page whose
    /// data moves a version its owner keeps (the menu catalog, the shop's listings).
    package static func keptPage(
        _ req: Request, tab: Tab, version: Int, stylesheets: [String] = [],
        read: () async throws -> (title: String, main: Node<HTML.BodyContext>)
    ) async throws -> Response {
        try await Layout.keptPage(req, version: version) {
            let (title, main) = try await read()
            return parts(req, tab: tab, title: title, stylesheets: stylesheets, main: main)
        }
    }

    /// A console page's parts: the tabs above, the build below.
    package static func parts(_ req: Request, tab: Tab, title: String, status: HTTPResponseStatus = .ok,
                      stylesheets: [String] = [], main: Node<HTML.BodyContext>) -> Layout.PageParts {
        let tabs: Node<HTML.BodyContext> = .nav(
            .class("admin-tabs"), .ariaLabel(req.t("admin.console")),
            .forEach(Tab.allCases) { item in
                .a(.href(item.path), .class(item == tab ? "admin-tab current" : "admin-tab"), .id("admin-tab-\(item.rawValue)"),
                   item == tab ? .ariaCurrent() : .empty,
                   .span(.ariaHidden(true), .text(item.emoji)), .span(.text(req.t("admin.tab.\(item.rawValue)"))))
            }
        )
        // Which version answers: during a rolling upgrade, instances may differ.
        let build = Node<HTML.BodyContext>.p(.class("muted admin-build"), .id("admin-build"),
                                             .text(req.t("admin.build", ["version": AppVersion.current, "build": AppVersion.build])))
        return Layout.PageParts(title: title, status: status,
                                extras: PageExtras(stylesheets: stylesheets + [stylesheet], bodyClass: "admin"),
                                main: .group(tabs, main, build))
    }
}

/// One figure on the console's Today tab: a label, the value, where to act on it, and whether it
/// wants someone's attention (waiting reports, failing refunds).
package struct TodayFigure: Hashable, Sendable {
    package let label: String
    package let value: String
    package let path: String?
    package let needsAttention: Bool

    package init(label: String, value: String, path: String? = nil, needsAttention: Bool = false) {
        self.label = label
        self.value = value
        self.path = path
        self.needsAttention = needsAttention
    }
}

/// A Today group: a heading and its figures.
package typealias TodayGroup = (heading: String, figures: [TodayFigure])

/// What features contribute to a console page (Today's groups of figures, Moderation's sections):
/// each registered in `configure`, asked in the order registered. A part registered with its
/// `version` (a count its owner moves after every committed write of what the part shows, here and
/// on every instance: `ChangeVersion`) lets the page be kept until one of them moves; a part
/// without one makes the page read every part on every view.
package final class AdminParts<Part>: Sendable {
    package typealias Source = @Sendable (Request) async throws -> Part
    package typealias Version = @Sendable (Application) -> Int
    private struct Registered: Sendable {
        let source: Source
        let version: Version?
    }

    private let sources = NIOLockedValueBox<[Registered]>([])

    package init() {}

    package func register(version: Version? = nil, _ source: @escaping Source) {
        sources.withLockedValue { $0.append(Registered(source: source, version: version)) }
    }

    package func parts(_ req: Request) async throws -> [Part] {
        var parts: [Part] = []
        for registered in sources.withLockedValue({ $0 }) { parts.append(try await registered.source(req)) }
        return parts
    }

    /// The parts' versions added up (each only ever grows, so the sum moves whenever one does); nil
    /// when a part has none, so the page reads them all on every view.
    package func version(_ app: Application) -> Int? {
        var sum = 0
        for registered in sources.withLockedValue({ $0 }) {
            guard let version = registered.version else { return nil }
            sum &+= version(app)
        }
        return sum
    }
}

extension Application {
    private struct AdminTodayKey: StorageKey { typealias Value = AdminParts<TodayGroup> }
    private struct AdminModerationKey: StorageKey { typealias Value = AdminParts<Node<HTML.BodyContext>> }
    private struct AdminPersonKey: StorageKey { typealias Value = AdminParts<Node<HTML.BodyContext>> }

    /// Today's groups of figures, one per feature that registers some.
    package var adminToday: AdminParts<TodayGroup> { adminParts(AdminTodayKey.self) }
    /// The Moderation tab's sections (`AdminModeration`), one per feature that registers one.
    package var adminModeration: AdminParts<Node<HTML.BodyContext>> { adminParts(AdminModerationKey.self) }
    /// A person's console page (`/admin/people/{user}`, the account in `:user`): each feature's
    /// section about them (the shop's orders), after the account's own.
    package var adminPerson: AdminParts<Node<HTML.BodyContext>> { adminParts(AdminPersonKey.self) }

    private func adminParts<Key: StorageKey, Part>(_ key: Key.Type) -> AdminParts<Part> where Key.Value == AdminParts<Part> {
        if let existing = storage[Key.self] { return existing }
        let made = AdminParts<Part>()
        storage[Key.self] = made
        return made
    }
}

/// The console's Moderation tab: each feature's section of what waits for an operator's decision
/// (reported reviews, suspended mates, place suggestions) with the forms that decide it
/// (`app.adminModeration`). Their forms post to the features' own routes, which show the tab again
/// with the error when a decision is refused.
package enum AdminModeration {
    /// The Moderation tab: every feature's section, an error above them when a decision was refused.
    /// Without an error, the tab is kept until a section's version moves (`AdminParts.version`):
    /// an operator's decision, a new report or suggestion, a name changed.
    package static func page(_ req: Request, error: AppError? = nil) async throws -> Response {
        func main(_ sections: [Node<HTML.BodyContext>]) -> Node<HTML.BodyContext> {
            .group(
                .h1(.text(req.t("admin.moderation.title"))),
                .p(.class("muted"), .text(req.t("admin.moderation.lead"))),
                Layout.formError(req, error),
                .group(sections)
            )
        }
        let title = req.t("admin.moderation.title")
        if error == nil, let version = req.application.adminModeration.version(req.application) {
            return try await AdminConsole.keptPage(req, tab: .moderation, version: version) {
                (title, main(try await req.application.adminModeration.parts(req)))
            }
        }
        let sections = try await req.application.adminModeration.parts(req)
        return AdminConsole.page(req, tab: .moderation, title: title, status: error?.status ?? .ok, main: main(sections))
    }

    /// The reason field every decision form carries: the person concerned reads it.
    package static func reasonField(_ req: Request, id: String) -> Node<HTML.FormContext> {
        .div(.class("field"),
             .label(.for(id), .text(req.t("admin.moderation.reason"))),
             .input(.type(.text), .id(id), .name("reason"), .attribute(named: "maxlength", value: "200"), .attribute(named: "required", value: "required"),
                    .attribute(named: "placeholder", value: req.t("admin.moderation.reason_placeholder"))))
    }

    /// What a decision form sends: which way (`decision`) and why (`reason`).
    package struct DecisionForm: Content {
        package let decision: String?
        package let reason: String?
    }

    /// A decision form's handler: `decision` one of `choices` (else 400) and a reason (else 422),
    /// then `act`; back to the tab at `anchor`, or the tab again with why it was refused.
    package static func decide(_ req: Request, choices: [String], anchor: String,
                               _ act: (_ decision: String, _ reason: String) async throws -> Void) async throws -> Response {
        let form = try req.content.decode(DecisionForm.self)
        return try await req.submitForm {
            guard let decision = form.decision, choices.contains(decision) else { throw AppError.badRequest("invalid_field", ["field": "decision"]) }
            try await act(decision, try reason(form.reason))
            return Layout.redirect(to: AdminConsole.Tab.moderation.path + "#" + anchor)
        } onRuleBroken: { try await page(req, error: $0) }
    }

    /// A decision's reason: 1–200 characters, else 422 `moderation_reason_required`.
    package static func reason(_ typed: String?) throws -> String {
        let reason = (typed ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty, reason.fits(characters: 200, bytes: 800) else { throw AppError.invalid("moderation_reason_required") }
        return reason
    }
}

extension AdminConsole {
    /// The Catalog tab's two lists: the shop's dishes and the menu game's menus.
    package static func catalogNav(_ req: Request, current: String) -> Node<HTML.BodyContext> {
        let items = [("dishes", "/admin/catalog", "admin.catalog.dishes"), ("menus", "/admin/catalog/menus", "admin.catalog.menus"),
                     ("shop", "/admin/catalog/shop", "admin.catalog.shop")]
        return .nav(.class("admin-subnav"), .ariaLabel(req.t("admin.tab.catalog")), .forEach(items) { item in
            .a(.href(item.1), .id("catalog-nav-\(item.0)"), .class(item.0 == current ? "current" : ""), item.0 == current ? .ariaCurrent() : .empty,
               .text(req.t(item.2)))
        })
    }
}
