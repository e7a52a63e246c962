import Accounts
import Fluent
@testable import Notifications
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Every statement of `NotificationStore` (SQLite here, PostgreSQL in CI's second pass): rows read
/// against the model, the actor joined through the accounts' store (and gone with its account),
/// and each write announced to the recipient's sockets with the count in memory following.
final class NotificationStoreTests: XCTestCase {
    private func draft(_ recipient: Member, from actor: Member?, kind: String = "review_commented", subject: UUID? = nil,
                       excerpt: String? = nil, once: Bool = false, collapses: Bool = false) -> NotificationDraft {
        NotificationDraft(recipient: recipient.id, actor: actor?.id, service: "burger-map", kind: kind, subjectID: subject,
                          link: "/burger-map/reviews/x", excerpt: excerpt, once: once, collapsesUnread: collapses)
    }

    func testTheRowsSayWhatTheModelSaysAndTheActorIsJoined() async throws {
        try await withTestApp { app in
            let store = NotificationStore(database: app.db, application: app)
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let subject = UUID()
            try await store.post(draft(mina, from: joon, subject: subject, excerpt: String(repeating: "맛", count: 100)))
            try await store.post(draft(mina, from: nil, kind: "place_suggestion_accepted"))

            let models = try await InboxNotification.query(on: app.db).sort(\.$createdAt, .descending).all()
            XCTAssertEqual(models.count, 2)
            for model in models {
                let row = try await app.db.sql.select().column(SQLLiteral.all).from(InboxNotification.schema)
                    .where("id", .equal, SQLBind(try model.requireID())).first(decoding: NotificationStore.Row.self)
                XCTAssertEqual(row, try NotificationStore.Row(model))
            }

            let page = try await store.page(for: mina.id, CursorPageRequest(limit: 10))
            XCTAssertEqual(page.items.map(\.kind), ["place_suggestion_accepted", "review_commented"], "newest first")
            XCTAssertNil(page.items[0].actor, "no actor: a left join keeps the row")
            let commented = page.items[1]
            XCTAssertEqual(commented.actor?.id, joon.id)
            XCTAssertEqual(commented.actor?.nickname, "준호")
            XCTAssertEqual(commented.subjectID, subject)
            XCTAssertEqual(commented.excerpt?.count, NotificationStore.maxExcerptCharacters, "the quote is cut")

            let one = try await store.notification(commented.id, for: mina.id)
            XCTAssertEqual(one?.actor?.nickname, "준호")
            let anothersRead = try await store.notification(commented.id, for: joon.id)
            XCTAssertNil(anothersRead, "another person's notification is not found")

            // The actor's account goes: the line stays, without its name or words.
            let deleted = try await app.send(.DELETE, "/api/v1/me", json: ["password": "password1"], token: joon.token)
            XCTAssertEqual(deleted.status, .noContent, deleted.text)
            let afterDeletion = try await store.notification(commented.id, for: mina.id)
            let line = try XCTUnwrap(afterDeletion)
            XCTAssertNil(line.actor)
            XCTAssertNil(line.excerpt)
        }
    }

    func testOnceAndCollapsingRules() async throws {
        try await withTestApp { app in
            let store = NotificationStore(database: app.db, application: app)
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let review = UUID()
            try await store.post(draft(mina, from: mina, subject: review))
            var count = try await store.unreadCount(for: mina.id)
            XCTAssertEqual(count, 0, "one's own action notifies nobody")

            try await store.post(draft(mina, from: joon, kind: "review_liked", subject: review, once: true))
            try await store.post(draft(mina, from: joon, kind: "review_liked", subject: review, once: true))
            count = try await store.unreadCount(for: mina.id)
            XCTAssertEqual(count, 1, "a like given twice is news once")
            try await store.markRead(for: mina.id, ids: nil)
            try await store.post(draft(mina, from: joon, kind: "review_liked", subject: review, once: true))
            count = try await store.unreadCount(for: mina.id)
            XCTAssertEqual(count, 0, "not even after it was read")

            try await store.post(draft(mina, from: joon, subject: review, excerpt: "첫 댓글", collapses: true))
            try await store.post(draft(mina, from: joon, subject: review, excerpt: "둘째 댓글", collapses: true))
            let page = try await store.page(for: mina.id, CursorPageRequest(limit: 10))
            XCTAssertEqual(page.items.filter { $0.kind == "review_commented" }.map(\.excerpt), ["둘째 댓글"], "unread comments collapse to the newest")
            XCTAssertEqual(page.items.first?.kind, "review_commented", "moved to the top")
            try await store.markRead(for: mina.id, ids: [page.items[0].id])
            try await store.post(draft(mina, from: joon, subject: review, excerpt: "셋째 댓글", collapses: true))
            let after = try await store.page(for: mina.id, CursorPageRequest(limit: 10))
            XCTAssertEqual(after.items.filter { $0.kind == "review_commented" }.map(\.excerpt), ["셋째 댓글", "둘째 댓글"], "a read one is not replaced")
            XCTAssertEqual(after.items.filter { $0.kind == "review_commented" }.map(\.count), [1, 2], "a collapsed entry counts what it stands for")

            // A given count replaces the collapsed one; marking one subject's kind read leaves the rest.
            var counted = draft(mina, from: joon, kind: "mates_messages", subject: review, excerpt: "안녕", collapses: true)
            counted.count = 5
            try await store.post(counted)
            counted.count = 7
            try await store.post(counted)
            let messages = try await store.page(for: mina.id, CursorPageRequest(limit: 10)).items.filter { $0.kind == "mates_messages" }
            XCTAssertEqual(messages.map(\.count), [7])
            let unreadBefore = try await store.unreadCount(for: mina.id)
            try await store.markRead(for: mina.id, kind: "mates_messages", subject: UUID())
            let unchanged = try await store.unreadCount(for: mina.id)
            XCTAssertEqual(unchanged, unreadBefore, "another subject's entry is not this one")
            try await store.markRead(for: joon.id, kind: "mates_messages", subject: review)
            let notHers = try await store.unreadCount(for: mina.id)
            XCTAssertEqual(notHers, unreadBefore, "another reader's marking is not hers")
            try await store.markRead(for: mina.id, kind: "mates_messages", subject: review)
            let read = try await store.unreadCount(for: mina.id)
            XCTAssertEqual(read, unreadBefore - 1)
        }
    }

    func testEveryWriteIsAnnouncedAndTheCountFollows() async throws {
        try await withTestApp { app in
            let store = NotificationStore(database: app.db, application: app)
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let sora = try await app.member("소라")
            let review = UUID()
            var heard = app.events.subscribe(to: NotificationStore.topic(for: mina.id)).makeAsyncIterator()
            let first = try await store.unreadCount(for: mina.id)
            XCTAssertEqual(first, 0)

            try await store.post(draft(mina, from: joon, subject: review, excerpt: "준호의 말"))
            let posted = try await store.page(for: mina.id, CursorPageRequest(limit: 10)).items[0].id
            let postedMessage = await heard.next()
            XCTAssertEqual(postedMessage, posted.uuidString, "the sockets are told which one arrived")
            var count = try await store.unreadCount(for: mina.id)
            XCTAssertEqual(count, 1, "the count in memory was forgotten")

            try await store.post(draft(mina, from: sora, kind: "review_liked", subject: review))
            _ = await heard.next()
            try await store.forgetWords(of: joon.id, kind: "review_commented", subject: review)
            let blankedMessage = await heard.next()
            XCTAssertEqual(blankedMessage, "changed")
            let blanked = try await store.page(for: mina.id, CursorPageRequest())
            XCTAssertEqual(blanked.items.map(\.excerpt), [nil, nil], "the first page in memory followed")

            try await store.markRead(for: mina.id, ids: [posted, UUID()])
            let readMessage = await heard.next()
            XCTAssertEqual(readMessage, "read")
            count = try await store.unreadCount(for: mina.id)
            XCTAssertEqual(count, 1)
            try await store.markRead(for: joon.id, ids: nil)
            count = try await store.unreadCount(for: mina.id)
            XCTAssertEqual(count, 1, "another person's read changes nothing here")

            try await store.withdraw(subject: review)
            count = try await store.unreadCount(for: mina.id)
            XCTAssertEqual(count, 0, "withdrawn with the subject, and the count followed")
            let emptied = try await store.page(for: mina.id, CursorPageRequest())
            XCTAssertTrue(emptied.items.isEmpty)
        }
    }

    func testPagesWalkTheWholeInbox() async throws {
        try await withTestApp { app in
            let store = NotificationStore(database: app.db, application: app)
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            for _ in 0..<7 { try await store.post(draft(mina, from: joon, kind: "review_liked", subject: UUID())) }
            var seen: [UUID] = []
            var page = CursorPageRequest(limit: 3)
            while true {
                let read = try await store.page(for: mina.id, page)
                seen += read.items.map(\.id)
                guard let next = read.nextCursor else { break }
                page = CursorPageRequest(cursor: PageCursor(encoded: next), limit: 3)
            }
            XCTAssertEqual(seen.count, 7)
            XCTAssertEqual(Set(seen).count, 7, "no row twice")
            let joons = try await store.page(for: joon.id, CursorPageRequest())
            XCTAssertTrue(joons.items.isEmpty, "only the recipient's own")
        }
    }
}
