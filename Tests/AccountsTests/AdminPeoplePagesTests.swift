@testable import Accounts
import Fluent
import Messaging
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The console's People tab (`/admin/people…`): only administrators reach it (404 for everyone
/// else, signed in or not, GET or POST); it finds accounts by the start of their email or a part
/// of their nickname (`%` and `_` match only themselves), makes someone an administrator or not,
/// deletes an account after asking; never the operator's own account, never the last
/// administrator; every change audited.
final class AdminPeoplePagesTests: XCTestCase {
    func at(_ id: UUID, _ tail: String = "") -> String { "/admin/people/\(id.uuidString.lowercased())\(tail)" }

    /// The accounts the list page links to, in its order.
    func listed(_ page: TestingHTTPResponse) -> [UUID] {
        page.text.components(separatedBy: #"href="/admin/people/"#).dropFirst().compactMap { UUID(uuidString: String($0.prefix(36))) }
    }

    func search(_ browser: inout CookieBrowser, _ query: String) async throws -> TestingHTTPResponse {
        let plain = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let page = try await browser.get("/admin/people?q=" + (query.addingPercentEncoding(withAllowedCharacters: plain) ?? query))
        XCTAssertEqual(page.status, .ok, query)
        return page
    }

    /// The role `GET /api/v1/me` reports for the member's token.
    func role(_ app: Application, _ member: Member) async throws -> String? {
        try await app.send(.GET, "/api/v1/me", token: member.token).object()["role"] as? String
    }

    func accountEntries(_ app: Application) async throws -> [AuditEntry] {
        try await AuditLog(database: app.db).page(CursorPageRequest()).items.filter { $0.action.hasPrefix("accounts.") }
    }

    func testNobodyButAnAdministratorReachesPeopleAndNothingChanges() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            let member = try await app.member("구경꾼")
            var anonymous = CookieBrowser(app: app)
            _ = try await anonymous.get("/login")
            var someone = try await CookieBrowser.signedIn(app, as: member.email)
            _ = try await someone.get("/shop")
            for path in ["/admin/people", "/admin/people?q=member", at(boss.id), at(member.id), at(boss.id, "/delete")] {
                let plain = try await app.send(.GET, path)
                XCTAssertEqual(plain.status, .notFound, path)
                let signedIn = try await someone.get(path)
                XCTAssertEqual(signedIn.status, .notFound, "\(path): not a hint that it exists")
                XCTAssertFalse(signedIn.text.contains("login?next"), path)
            }
            let forms: [(String, [String: String])] = [(at(member.id, "/role"), ["role": "admin"]), (at(boss.id, "/role"), ["role": "user"]),
                                                       (at(boss.id, "/delete"), [:])]
            for (path, form) in forms {
                let plain = try await anonymous.post(path, form: form)
                XCTAssertEqual(plain.status, .notFound, path)
                let signedIn = try await someone.post(path, form: form)
                XCTAssertEqual(signedIn.status, .notFound, path)
            }
            let memberRole = try await role(app, member), bossRole = try await role(app, boss)
            XCTAssertEqual(memberRole, "user", "the member did not make themselves an administrator")
            XCTAssertEqual(bossRole, "admin", "nor demote or delete the administrator")
            let entries = try await accountEntries(app)
            XCTAssertEqual(entries.count, 0)

            var console = try await CookieBrowser.signedIn(app, as: boss.email)
            let list = try await console.get("/admin/people")
            XCTAssertEqual(list.status, .ok, "the routes are there for an administrator")
            XCTAssertTrue(list.text.contains(#"id="people""#))
        }
    }

    func testSearchFindsByEmailStartOrNicknamePartAndTakesWildcardsLiterally() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            let gukbap = try await app.member("국밥조아")
            let percent = try await app.member("Top100%Burger")
            try await app.age(boss, by: 120)
            try await app.age(gukbap, by: 60)
            var console = try await CookieBrowser.signedIn(app, as: boss.email)

            let byEmail = try await search(&console, String(try XCTUnwrap(gukbap.email).prefix(15)).uppercased())
            XCTAssertEqual(listed(byEmail), [gukbap.id], "the start of the email, case aside")
            let ourAccounts = try await search(&console, "MEMBER-")
            XCTAssertEqual(listed(ourAccounts), [percent.id, gukbap.id, boss.id], "newest first, not the seed reviewers")
            let middleOfEmail = try await search(&console, "example.com")
            XCTAssertEqual(listed(middleOfEmail), [], "the email must start with it")
            let byNickname = try await search(&console, "밥조")
            XCTAssertEqual(listed(byNickname), [gukbap.id], "a part of the nickname")
            let caseless = try await search(&console, "p100%bUR")
            XCTAssertEqual(listed(caseless), [percent.id], "a part of the nickname, case aside")

            let wildcard = try await search(&console, "%")
            XCTAssertEqual(listed(wildcard), [percent.id], "% matches only a %")
            let single = try await search(&console, "_")
            XCTAssertEqual(listed(single), [], "_ matches only an _")
            XCTAssertTrue(single.text.contains(#"id="people-empty""#))
            XCTAssertTrue(single.text.contains("맞는 회원이 없어요."))

            let newest = try await console.get("/admin/people")
            let all = listed(newest)
            let total = try await User.query(on: app.db).count()
            XCTAssertEqual(all.count, min(30, total), "the newest accounts, 30 at most")
            XCTAssertEqual(all.first, percent.id, "the newest first")
            let gukbapAt = try XCTUnwrap(all.firstIndex(of: gukbap.id)), bossAt = try XCTUnwrap(all.firstIndex(of: boss.id))
            XCTAssertLessThan(gukbapAt, bossAt)
            XCTAssertFalse(newest.text.contains(#"id="people-empty""#))
        }
    }

    func testAnAdministratorChangesSomeoneElsesRoleNeverTheirOwnEachAudited() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            let mina = try await app.member("미나")
            var console = try await CookieBrowser.signedIn(app, as: boss.email)
            let page = try await console.get(at(mina.id))
            XCTAssertEqual(page.status, .ok)
            XCTAssertTrue(page.text.contains(#"id="person-role">일반 회원<"#), page.text)
            XCTAssertTrue(page.text.contains("관리자로 만들기"))
            let asMember = try await app.send(.GET, "/api/v1/admin/audit", token: mina.token)
            XCTAssertEqual(asMember.status, .forbidden)

            let promoted = try await console.post(at(mina.id, "/role"), form: ["role": "admin"])
            XCTAssertEqual(promoted.status, .seeOther, promoted.text)
            XCTAssertEqual(promoted.headers.first(name: .location), at(mina.id))
            let asAdmin = try await app.send(.GET, "/api/v1/admin/audit", token: mina.token)
            XCTAssertEqual(asAdmin.status, .ok, "her token is an administrator's at once")
            let promotedRole = try await role(app, mina)
            XCTAssertEqual(promotedRole, "admin")
            let shown = try await console.get(at(mina.id))
            XCTAssertTrue(shown.text.contains(#"id="person-role">관리자<"#))
            XCTAssertTrue(shown.text.contains("관리자 권한 빼기"))
            var entries = try await accountEntries(app)
            XCTAssertEqual(entries.map(\.action), ["accounts.role.change"])
            XCTAssertEqual(entries.first?.actorID, boss.id)
            XCTAssertEqual(entries.first?.subjectType, "account")
            XCTAssertEqual(entries.first?.subjectID, mina.id.uuidString)
            XCTAssertEqual(entries.first?.before, ["role": "user"])
            XCTAssertEqual(entries.first?.after, ["role": "admin"])

            // Mina, an administrator now, reaches People but cannot change herself there.
            var minasConsole = try await CookieBrowser.signedIn(app, as: mina.email)
            let herList = try await minasConsole.get("/admin/people")
            XCTAssertEqual(herList.status, .ok)
            let herself = try await minasConsole.post(at(mina.id, "/role"), form: ["role": "user"])
            XCTAssertEqual(herself.status, .conflict)
            XCTAssertTrue(herself.text.contains("내 계정의 권한 변경과 삭제는 여기서 할 수 없어요."), herself.text)

            // Two administrators: the boss takes Mina's away.
            let demoted = try await console.post(at(mina.id, "/role"), form: ["role": "user"])
            XCTAssertEqual(demoted.status, .seeOther, demoted.text)
            let afterDemotion = try await app.send(.GET, "/api/v1/admin/audit", token: mina.token)
            XCTAssertEqual(afterDemotion.status, .forbidden)
            let herConsoleNow = try await minasConsole.get("/admin/people")
            XCTAssertEqual(herConsoleNow.status, .notFound, "her browser is a member's again")
            entries = try await accountEntries(app)
            XCTAssertEqual(entries.count, 2)
            XCTAssertEqual(entries.first?.before, ["role": "admin"])
            XCTAssertEqual(entries.first?.after, ["role": "user"])

            let unchanged = try await console.post(at(mina.id, "/role"), form: ["role": "user"])
            XCTAssertEqual(unchanged.status, .seeOther)
            for form in [["role": "owner"], [:]] {
                let bad = try await console.post(at(mina.id, "/role"), form: form)
                XCTAssertEqual(bad.status, .badRequest, "\(form)")
                XCTAssertTrue(bad.text.contains("form-error"), "\(form)")
            }
            let minaRole = try await role(app, mina)
            XCTAssertEqual(minaRole, "user")

            // The boss, the only administrator left, cannot change their own role.
            let ownPage = try await console.get(at(boss.id))
            XCTAssertTrue(ownPage.text.contains("내 계정이에요."))
            XCTAssertFalse(ownPage.text.contains(#"id="change-role""#))
            XCTAssertFalse(ownPage.text.contains(#"id="delete-person""#))
            let own = try await console.post(at(boss.id, "/role"), form: ["role": "user"])
            XCTAssertEqual(own.status, .conflict)
            XCTAssertTrue(own.text.contains("내 계정의 권한 변경과 삭제는 여기서 할 수 없어요."), own.text)
            let bossRole = try await role(app, boss)
            XCTAssertEqual(bossRole, "admin")
            entries = try await accountEntries(app)
            XCTAssertEqual(entries.count, 2, "nothing refused or unchanged is audited")

            // Nobody else could act on the last administrator through the console; the rule holds below it.
            let service = AccountService(request: Request(application: app, on: app.eventLoopGroup.next()))
            let found = try await User.find(boss.id, on: app.db)
            let last = try XCTUnwrap(found)
            await assertRefused("last_administrator", "demoting") { try await service.changeRole(of: last, to: .user, by: UUID()) }
            await assertRefused("last_administrator", "deleting") { try await service.removeByOperator(last, by: UUID()) }
            let stillAdmin = try await role(app, boss)
            XCTAssertEqual(stillAdmin, "admin")
        }
    }

    func testAnAdministratorDeletesAnAccountAfterAskingButNotTheirOwn() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            let leaving = try await app.member("떠날손님")
            var console = try await CookieBrowser.signedIn(app, as: boss.email)
            let ask = try await console.get(at(leaving.id, "/delete"))
            XCTAssertEqual(ask.status, .ok)
            XCTAssertTrue(ask.text.contains("떠날손님님의 계정을 삭제할까요?"), ask.text)
            XCTAssertTrue(ask.text.contains(#"id="confirm-delete""#))
            let asked = try await app.send(.GET, "/api/v1/me", token: leaving.token)
            XCTAssertEqual(asked.status, .ok, "asking deletes nothing")

            let deleted = try await console.post(at(leaving.id, "/delete"), form: [:])
            XCTAssertEqual(deleted.status, .seeOther, deleted.text)
            XCTAssertEqual(deleted.headers.first(name: .location), "/admin/people")
            let me = try await app.send(.GET, "/api/v1/me", token: leaving.token)
            XCTAssertEqual(me.status, .unauthorized, "their token no longer works")
            let logIn = try await app.send(.POST, "/api/v1/auth/login", json: ["email": try XCTUnwrap(leaving.email), "password": "password1"])
            XCTAssertEqual(logIn.status, .unauthorized)
            XCTAssertEqual(logIn.errorCode, "invalid_credentials")
            let gone = try await console.get(at(leaving.id))
            XCTAssertEqual(gone.status, .notFound)
            let searched = try await search(&console, try XCTUnwrap(leaving.email))
            XCTAssertEqual(listed(searched), [])
            let count = try await User.query(on: app.db).filter(\.$id == leaving.id).count()
            XCTAssertEqual(count, 0)

            var entries = try await accountEntries(app)
            XCTAssertEqual(entries.map(\.action), ["accounts.account.delete"])
            XCTAssertEqual(entries.first?.actorID, boss.id)
            XCTAssertEqual(entries.first?.subjectID, leaving.id.uuidString)
            XCTAssertEqual(entries.first?.before, ["nickname": "떠날손님"], "the nickname kept, the account gone")
            XCTAssertNil(entries.first?.after)

            let own = try await console.post(at(boss.id, "/delete"), form: [:])
            XCTAssertEqual(own.status, .conflict)
            XCTAssertTrue(own.text.contains("내 계정의 권한 변경과 삭제는 여기서 할 수 없어요."), own.text)
            let bossMe = try await app.send(.GET, "/api/v1/me", token: boss.token)
            XCTAssertEqual(bossMe.status, .ok)
            entries = try await accountEntries(app)
            XCTAssertEqual(entries.count, 1)
        }
    }

    /// An operator's change and its audit entry are one transaction: when the entry cannot be
    /// written, the role, the suspension and the deletion are not kept either.
    func testAnOperatorsChangeIsNotKeptWithoutItsAuditEntry() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            let mina = try await app.member("미나")
            var console = try await CookieBrowser.signedIn(app, as: boss.email)
            _ = try await console.get(at(mina.id))
            try await app.db.sql.raw("ALTER TABLE \(ident: AuditLog.table) RENAME TO audit_log_away").run()
            for (path, form) in [("/role", ["role": "admin"]), ("/suspension", ["decision": "suspend", "reason": "기록이 남지 않을 정지"]), ("/delete", [:])] {
                let refused = try await console.post(at(mina.id, path), form: form)
                XCTAssertEqual(refused.status, .internalServerError, path)
            }
            try await app.db.sql.raw("ALTER TABLE audit_log_away RENAME TO \(ident: AuditLog.table)").run()
            let kept = try await role(app, mina)
            XCTAssertEqual(kept, "user")
            let me = try await app.send(.GET, "/api/v1/me", token: mina.token)
            XCTAssertEqual(me.status, .ok, "neither suspended nor deleted")
            let entries = try await accountEntries(app)
            XCTAssertEqual(entries.count, 0)
        }
    }

    /// "Send a reset link" mails the person a link that works, audited; never for a suspended
    /// account; a production server without mail says so; nobody else reaches it.
    func testAnOperatorMailsAResetLinkButNotToASuspendedAccount() async throws {
        try await withTestApp { app in
            app.workQueue.runsInBackground = false
            let inbox = app.mailInbox
            let boss = try await app.member("사장님", admin: true)
            let member = try await app.member("잊은손님")
            let email = try XCTUnwrap(member.email)

            var someone = try await CookieBrowser.signedIn(app, as: email)
            _ = try await someone.get("/me")
            let forced = try await someone.post(at(member.id, "/reset-link"), form: [:])
            XCTAssertEqual(forced.status, .notFound, "not for a member")
            XCTAssertTrue(inbox.all.isEmpty)

            var console = try await CookieBrowser.signedIn(app, as: boss.email)
            let page = try await console.get(at(member.id))
            XCTAssertTrue(page.text.contains(#"id="send-reset-link""#))
            let forged = try await console.post(at(member.id, "/reset-link"), form: [:], includeCSRF: false)
            XCTAssertEqual(forged.status, .forbidden, "CSRF")
            let sent = try await console.post(at(member.id, "/reset-link"), form: [:])
            XCTAssertEqual(sent.status, .seeOther, sent.text)
            let after = try await console.get(try XCTUnwrap(sent.headers.first(name: .location)))
            XCTAssertTrue(after.text.contains(#"id="person-notice""#), "the page says it went")
            let token = try XCTUnwrap(inbox.lastLink(to: email)?.token)
            let reset = try await app.send(.POST, "/api/v1/auth/password-reset/confirm", json: ["token": token, "password": "new-password-2"])
            XCTAssertEqual(reset.status, .ok, reset.text)
            let entry = try await accountEntries(app).first { $0.action == "accounts.password.reset_link" }
            XCTAssertEqual(entry?.actorID, boss.id)
            XCTAssertEqual(entry?.subjectID, member.id.uuidString)
            XCTAssertEqual(entry?.after?["sent"], "mail")

            _ = try await console.get(at(member.id))
            _ = try await console.post(at(member.id, "/suspension"), form: ["decision": "suspend", "reason": "광고 도배"])
            let suspendedPage = try await console.get(at(member.id))
            XCTAssertFalse(suspendedPage.text.contains(#"id="send-reset-link""#), "no button for a suspended account")
            let refused = try await console.post(at(member.id, "/reset-link"), form: [:])
            XCTAssertEqual(refused.status, .forbidden)
            XCTAssertEqual(inbox.mail(to: email).count, 1, "no second mail")
        }
        try await withTestApp(adjust: { $0.mail.production = true; $0.mail.smtpURL = nil }) { app in
            let boss = try await app.member("사장님", admin: true)
            let member = try await app.member("잊은손님")
            var console = try await CookieBrowser.signedIn(app, as: boss.email)
            _ = try await console.get(at(member.id))
            let noMail = try await console.post(at(member.id, "/reset-link"), form: [:])
            XCTAssertEqual(noMail.status, .serviceUnavailable)
            XCTAssertTrue(noMail.text.contains("메일을 보낼 수 없어요"), "said on the page")
            let entries = try await accountEntries(app)
            XCTAssertFalse(entries.contains { $0.action == "accounts.password.reset_link" }, "nothing done, nothing audited")
        }
    }

    /// Issue 61: the list is kept at the accounts' version: a sign-up and a change show on the next
    /// view; a row changed behind the store's back does not until an instance announces the
    /// account's change. Each search is kept apart, and still recorded on every view.
    func testTheListIsKeptUntilAnAccountChangeIsAnnounced() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            var browser = try await CookieBrowser.signedIn(app, as: boss.email)
            _ = try await browser.get("/me")
            let before = try await search(&browser, "member")
            let newcomer = try await app.member("새로온분")
            let after = try await search(&browser, "member")
            XCTAssertEqual(listed(after).count, listed(before).count + 1, "a sign-up shows on the next view")
            XCTAssertTrue(listed(after).contains(newcomer.id))
            // The announcements of the writes above come back from the bus too: let them land first.
            try await Task.sleep(for: .milliseconds(100))
            _ = try await search(&browser, "member")

            try await (app.db as! any SQLDatabase).update(User.schema).set("nickname", to: SQLBind("몰래바뀐이름"))
                .where("id", .equal, SQLBind(newcomer.id)).run()
            let kept = try await search(&browser, "member")
            XCTAssertFalse(kept.text.contains("몰래바뀐이름"), "kept until told")
            let elsewhere = try await search(&browser, String(try XCTUnwrap(newcomer.email).prefix(12)))
            XCTAssertTrue(elsewhere.text.contains("몰래바뀐이름"), "another search is read for itself")
            await app.events.publish(SessionCache.Change.user(newcomer.id).message, to: SessionCache.topic)
            try await Task.sleep(for: .milliseconds(50))
            let told = try await search(&browser, "member")
            XCTAssertTrue(told.text.contains("몰래바뀐이름"), "another instance's change shows")

            let searches = try await AccessRecords(database: app.db).page(CursorPageRequest(limit: 100)).items.filter { $0.what == "accounts.people.search" }
            XCTAssertEqual(searches.count, 6, "every view of a search is recorded, kept or not")
        }
    }
}
