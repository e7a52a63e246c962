import Foundation
import NIOConcurrencyHelpers
import Plot
import Vapor

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

    /// The tabs whose pages exist; moderation and people join when theirs do (issue 41), so no tab
    /// leads to a 404.
    package static let shownTabs: [Tab] = [.today, .orders, .catalog, .audit]

    /// A console page: the tabs (this one marked current), then `main`.
    package static func page(_ req: Request, tab: Tab, title: String, status: HTTPResponseStatus = .ok,
                             stylesheets: [String] = [], main: Node<HTML.BodyContext>) -> Response {
        let tabs: Node<HTML.BodyContext> = .nav(
            .class("admin-tabs"), .ariaLabel(req.t("admin.console")),
            .forEach(shownTabs) { item in
                .a(.href(item.path), .class(item == tab ? "admin-tab current" : "admin-tab"), .id("admin-tab-\(item.rawValue)"),
                   item == tab ? .ariaCurrent() : .empty,
                   .span(.ariaHidden(true), .text(item.emoji)), .span(.text(req.t("admin.tab.\(item.rawValue)"))))
            }
        )
        return Layout.page(req, title: title, status: status,
                           extras: PageExtras(stylesheets: stylesheets + [stylesheet], bodyClass: "admin"),
                           main: .group(tabs, main))
    }
}

/// One figure on the console's Today tab: a label, the value, where to act on it, and whether it
/// wants someone's attention (waiting reports, failing refunds).
package struct TodayFigure: Sendable {
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

/// What each feature puts on the Today tab: groups of figures (a heading and its figures), read
/// fresh on every view. Features register in `configure`; the page asks them in the order registered.
package final class AdminToday: Sendable {
    package typealias Figures = @Sendable (Request) async throws -> (heading: String, figures: [TodayFigure])
    private let sources = NIOLockedValueBox<[Figures]>([])

    package init() {}

    package func register(_ figures: @escaping Figures) {
        sources.withLockedValue { $0.append(figures) }
    }

    package func groups(_ req: Request) async throws -> [(heading: String, figures: [TodayFigure])] {
        var groups: [(heading: String, figures: [TodayFigure])] = []
        for source in sources.withLockedValue({ $0 }) { groups.append(try await source(req)) }
        return groups
    }
}

extension Application {
    private struct AdminTodayKey: StorageKey { typealias Value = AdminToday }

    package var adminToday: AdminToday {
        if let existing = storage[AdminTodayKey.self] { return existing }
        let made = AdminToday()
        storage[AdminTodayKey.self] = made
        return made
    }
}
