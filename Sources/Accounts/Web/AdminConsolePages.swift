import Fluent
import Foundation
import Platform
import Plot
import Vapor

/// The console's own tabs (administrators only; others get 404): Today, the figures each feature
/// registers (`app.adminToday`) plus the server's own (sign-ups, push and SMS failures, free disk), and
/// the audit log, read-only, newest first.
struct AdminConsolePages: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let admin = routes.grouped(AdministratorsOnly())
        admin.get("admin", use: today)
        admin.get("admin", "audit", use: audit)
        admin.get("admin", "audit", "access", use: accessRecords)
        admin.get("admin", "moderation") { try await AdminModeration.page($0) }
    }

    /// How long Today is kept at most, at one version: what moves without an announcement here — a
    /// refund's outcome another instance recorded, the free disk — shows within this.
    static let todayLifetimeSeconds: Int64 = 10

    /// Today: kept until a figure's owner announced a change (each feature's `AdminParts` version,
    /// the accounts' and the tallies'), the day turned, or `todayLifetimeSeconds` passed; the time shown
    /// is when its figures were read.
    func today(req: Request) async throws -> Response {
        let app = req.application, now = app.accountsEnvironment.now()
        let day = String(Int(Calendar.korea.startOfDay(for: now).timeIntervalSince1970))
        guard let partsVersion = app.adminToday.version(app) else { return try await todayPage(req, kept: nil) }
        let version = partsVersion &+ app.accountsEnvironment.sessions.accountsVersion &+ app.dailyTallyChanges.current
        return try await todayPage(req, kept: (version, day))
    }

    private func todayPage(_ req: Request, kept: (version: Int, day: String)?) async throws -> Response {
        func read() async throws -> Layout.PageParts {
            var groups = try await req.application.adminToday.parts(req)
            groups.append(try await serverFigures(req))
            let main: Node<HTML.BodyContext> = .group(
                .h1(.text(req.t("admin.today.title"))),
                .p(.class("muted"), .text(req.t("admin.today.as_of", ["time": PageDates.medium(req.application.accountsEnvironment.now(), req.language)]))),
                .forEach(groups) { group in
                    .section(
                        .class("card today-group"), .ariaLabel(group.heading),
                        .h2(.text(group.heading)),
                        .ul(.class("today-figures"), .forEach(group.figures) { figure in
                            let classes = figure.needsAttention ? "today-figure attention" : "today-figure"
                            let value = "figure-value", label = "figure-label"
                            guard let path = figure.path else {
                                return .li(.div(.class(classes), .span(.class(value), .text(figure.value)), .span(.class(label), .text(figure.label))))
                            }
                            return .li(.a(.class(classes), .href(path), .span(.class(value), .text(figure.value)), .span(.class(label), .text(figure.label))))
                        })
                    )
                }
            )
            return AdminConsole.parts(req, tab: .today, title: req.t("admin.today.title"), main: main)
        }
        guard let kept else {
            let parts = try await read()
            return Layout.page(req, title: parts.title, status: parts.status, extras: parts.extras, main: parts.main)
        }
        return try await Layout.keptPage(req, variant: kept.day, version: kept.version, lifetime: .seconds(Self.todayLifetimeSeconds)) { try await read() }
    }

    /// The server's own figures: accounts made today, pushes and texts that failed today (on every
    /// instance: `DailyTallies`), free disk.
    private func serverFigures(_ req: Request) async throws -> (heading: String, figures: [TodayFigure]) {
        let startOfDay = Calendar.korea.startOfDay(for: req.application.accountsEnvironment.now())
        let signUps = try await AccountStore.signUps(since: startOfDay, on: req.db)
        let failures = try await DailyTallies(database: req.db).today(at: req.application.accountsEnvironment.now())
        let pushFailed = failures[.pushFailed] ?? 0, smsFailed = failures[.smsFailed] ?? 0
        var figures = [
            TodayFigure(label: req.t("admin.today.sign_ups"), value: String(signUps), path: AdminConsole.Tab.people.path),
            TodayFigure(label: req.t("admin.today.push_failed"), value: String(pushFailed), needsAttention: pushFailed > 0),
            TodayFigure(label: req.t("admin.today.sms_failed"), value: String(smsFailed), needsAttention: smsFailed > 0),
        ]
        if let free = Self.freeBytes(at: req.application.settings.dataDirectory) {
            // Under 1 GB left wants attention: uploads and the database stop when it runs out.
            figures.append(TodayFigure(label: req.t("admin.today.free_disk"), value: Self.size(free), needsAttention: free < 1 << 30))
        }
        return (req.t("admin.today.server"), figures)
    }

    /// Bytes free to this process on the file system holding `path`.
    static func freeBytes(at path: String) -> UInt64? {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return nil }
        return UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
    }

    /// `12.3 GB`, `850 MB`.
    static func size(_ bytes: UInt64) -> String {
        let gigabytes = Double(bytes) / Double(1 << 30)
        return gigabytes >= 1 ? String(format: "%.1f GB", gigabytes) : String(format: "%.0f MB", Double(bytes) / Double(1 << 20))
    }

    // MARK: Audit log

    /// The log, kept per address (each page of it) until an entry written here committed
    /// (`AuditLog.changes`) or an account changed (the actors' names); an entry another instance
    /// wrote shows within `todayLifetimeSeconds`, as Today's figures do.
    func audit(req: Request) async throws -> Response {
        let pageRequest = try CursorPageRequest(from: req)
        let version = AuditLog.changes.current &+ req.application.accountsEnvironment.sessions.accountsVersion
        return try await Layout.keptPage(req, version: version, lifetime: .seconds(Self.todayLifetimeSeconds)) {
            let page = try await AuditLog(database: req.db).page(pageRequest)
            var nicknames: [UUID: String] = [:]
            for id in Set(page.items.compactMap(\.actorID)) {
                nicknames[id] = try await AccountStore.person(id, on: req.db)?.nickname
            }
            let main: Node<HTML.BodyContext> = .group(
                Self.auditNav(req, current: "actions"),
                .h1(.text(req.t("admin.audit.title"))),
                .p(.class("muted"), .text(req.t("admin.audit.lead"))),
                page.items.isEmpty ? .p(.class("muted"), .id("audit-empty"), .text(req.t("admin.audit.empty"))) : .empty,
                .ol(.class("audit-list"), .id("audit-entries"), .forEach(page.items) { entry in
                    .li(
                        .class("card audit-entry"),
                        .p(.strong(.text(AuditWords.action(req, entry.action))),
                           .text(" · " + AuditWords.subject(req, type: entry.subjectType, id: entry.subjectID))),
                        .p(.class("muted"), .text(req.t("admin.audit.by", [
                            // No actor: an operator at the server's shell (`whatweeat user …`, `mail test`).
                            "actor": entry.actorID.map { nicknames[$0] ?? req.t("admin.audit.gone") } ?? req.t("admin.audit.command_line"),
                            "time": PageDates.medium(entry.createdAt, req.language),
                        ]))),
                        .ul(.class("audit-changes"), .forEach(AuditWords.changes(req, before: entry.before, after: entry.after)) { .li(.text($0)) }),
                        // The machine's words too, for an operator matching the log with the API's.
                        .p(.class("audit-code muted"), .element(named: "code", text: entry.action))
                    )
                }),
                page.nextCursor.map { .a(.class("button wide"), .id("audit-more"), .href("/admin/audit?cursor=\($0)"), .text(req.t("inbox.more"))) } ?? .empty
            )
            return AdminConsole.parts(req, tab: .audit, title: req.t("admin.audit.title"), main: main)
        }
    }

    /// The log's two lists: what operators did, and what they were shown of people's data.
    static func auditNav(_ req: Request, current: String) -> Node<HTML.BodyContext> {
        let items = [("actions", "/admin/audit", "admin.audit.title"), ("access", "/admin/audit/access", "admin.access.title")]
        return .nav(.class("admin-subnav"), .ariaLabel(req.t("admin.tab.audit")), .forEach(items) { item in
            .a(.href(item.1), .id("audit-nav-\(item.0)"), .class(item.0 == current ? "current" : ""), item.0 == current ? .ariaCurrent() : .empty,
               .text(req.t(item.2)))
        })
    }

    /// `/admin/audit/access`: every look at someone's data in the console, newest first — who,
    /// whose, when, what and from where (`AccessRecords`, kept two years), one person's with `?person=`.
    func accessRecords(req: Request) async throws -> Response {
        let person = req.query[String.self, at: "person"].flatMap(UUID.init(uuidString:))
        let page = try await AccessRecords(database: req.db).page(try CursorPageRequest(from: req), person: person)
        var nicknames: [UUID: String] = [:]
        for id in Set(page.items.flatMap { [$0.actorID] + ($0.personID.map { [$0] } ?? []) }) {
            nicknames[id] = try await AccountStore.person(id, on: req.db)?.nickname
        }
        let name = { (id: UUID) in nicknames[id] ?? req.t("admin.audit.gone") }
        let main: Node<HTML.BodyContext> = .group(
            Self.auditNav(req, current: "access"),
            .h1(.text(req.t("admin.access.title"))),
            .p(.class("muted"), .text(req.t("admin.access.lead", ["days": String(AccessRecords.keptDays)]))),
            page.items.isEmpty ? .p(.class("muted"), .id("access-empty"), .text(req.t("admin.audit.empty"))) : .empty,
            .ol(.class("audit-list"), .id("access-records"), .forEach(page.items) { record in
                .li(
                    .class("card audit-entry access-record"),
                    .p(.strong(.text(req.application.translator.has("admin.access.what.\(record.what)") ? req.t("admin.access.what.\(record.what)") : record.what)),
                       .text(" · " + record.subject)),
                    record.personID.map { .p(.text(req.t("admin.access.whose", ["person": name($0)]))) } ?? .empty,
                    .p(.class("muted"), .text(req.t("admin.access.by", ["actor": name(record.actorID), "time": PageDates.medium(record.createdAt, req.language),
                                                                      "network": record.network])))
                )
            }),
            page.nextCursor.map { cursor in
                .a(.class("button wide"), .id("access-more"),
                   .href("/admin/audit/access?" + (person.map { "person=\($0.uuidString)&" } ?? "") + "cursor=\(cursor)"), .text(req.t("inbox.more")))
            } ?? .empty
        )
        return AdminConsole.page(req, tab: .audit, title: req.t("admin.access.title"), main: main)
    }
}
