@testable import Accounts
import Fluent
import Foundation
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The statements `AccountStore` lends other stores (SQLite here, PostgreSQL in CI's second pass):
/// an account's public face joined to another table's rows, read alone, and written in bulk by the
/// synthetic data sets — each checked against the model.
final class AccountStoreTests: XCTestCase {
    /// A table of another feature's rows naming accounts, for the joins to read.
    private func makeMentions(_ app: Application, _ mentions: [(id: Int, person: UUID?)]) async throws {
        try await app.db.sql.create(table: "test_mentions").column("id", type: .int, .primaryKey(autoIncrement: false))
            .column("person_id", type: .custom(SQLRaw(app.db.sql.dialect.name == "postgresql" ? "UUID" : "BLOB"))).run()
        for mention in mentions {
            try await app.db.sql.insert(into: "test_mentions").columns("id", "person_id")
                .values(SQLBind(mention.id), mention.person.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null).run()
        }
    }

    func testAPersonJoinedToAnotherTablesRowsIsTheirAccount() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let user = try await User.find(mina.id, on: app.db)
            let model = try XCTUnwrap(user)
            model.profileImageKey = "abc.jpg"
            try await model.save(on: app.db)
            try await makeMentions(app, [(1, mina.id), (2, nil), (3, UUID())])

            let rows = try await app.db.sql.select().column(SQLColumn("id", table: "test_mentions")).column("person_id").from("test_mentions")
                .joiningPerson("author", on: SQLColumn("person_id", table: "test_mentions"), keepingOrphans: true)
                .orderBy(SQLColumn("id", table: "test_mentions")).all()
            XCTAssertEqual(rows.count, 3, "a left join keeps rows naming nobody or a deleted account")
            let people = try rows.map { try AccountStore.person("author", id: try $0.decode(column: "person_id", as: UUID?.self), in: $0) }
            XCTAssertEqual(people[0], AccountStore.JoinedPerson(id: mina.id, nickname: model.nickname, profileImageKey: "abc.jpg"))
            XCTAssertNil(people[1])
            XCTAssertNil(people[2])

            let inner = try await app.db.sql.select().column(SQLColumn("id", table: "test_mentions")).from("test_mentions")
                .joiningPerson("author", on: SQLColumn("person_id", table: "test_mentions")).all()
            XCTAssertEqual(try inner.map { try $0.decode(column: "id", as: Int.self) }, [1], "an inner join keeps only rows with an account")

            // Two roles in one statement do not collide.
            let both = try await app.db.sql.select().column(SQLColumn("id", table: "test_mentions")).from("test_mentions")
                .joiningPerson("author", on: SQLColumn("person_id", table: "test_mentions"))
                .joiningPerson("creator", on: SQLColumn("person_id", table: "test_mentions")).first()
            let row = try XCTUnwrap(both)
            XCTAssertEqual(try AccountStore.person("creator", id: mina.id, in: row).nickname, "미나")
            XCTAssertThrowsError(try AccountStore.person("nobody", id: mina.id, in: row), "a role not joined is an error, not a stranger")

            // The written-out twin joins the same person, under the same column names.
            let account = AccountStore.personJoinSQL("author", on: "m.person_id")
            let written = try await app.db.sql.raw("""
                SELECT m.id, \(account.columns) FROM test_mentions m \(account.join) ORDER BY m.id
                """).all()
            XCTAssertEqual(try written.map { try $0.decode(column: "id", as: Int.self) }, [1], "an inner join, as joiningPerson's")
            let writtenPerson: AccountStore.JoinedPerson = try AccountStore.person("author", id: mina.id, in: try XCTUnwrap(written.first))
            XCTAssertEqual(writtenPerson, people[0])
        }
    }

    func testOnePersonReadAloneWithColumnsOfItsOwn() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            _ = try await app.member("준호")
            let read = try await AccountStore.selectPerson(
                "person", id: mina.id,
                adding: "(SELECT COUNT(*) FROM \(ident: User.schema) o WHERE o.id <> \(AccountStore.personID("person"))) AS others",
                on: app.db.sql).first()
            let row = try XCTUnwrap(read)
            XCTAssertEqual(try AccountStore.person("person", id: mina.id, in: row).nickname, "미나")
            let everyone = try await User.query(on: app.db).count()
            XCTAssertEqual(try row.decode(column: "others", as: Int.self), everyone - 1, "the correlated subquery sees the person's id")
            let unknown = try await AccountStore.selectPerson("person", id: UUID(), on: app.db.sql).first()
            XCTAssertNil(unknown)
        }
    }

    func testSyntheticAccountsAreAccountsTheModelReads() async throws {
        try await withTestApp { app in
            let stamp = Date(timeIntervalSince1970: 1_800_000_000.5)
            let ids = [UUID(), UUID()]
            let rows = ids.enumerated().map { index, id in
                AccountStore.syntheticRow(id: id, email: "synthetic-\(index)@example.invalid", passwordHash: "hash-\(index)",
                                          nickname: "Synthetic\(index)", createdAt: stamp)
            }
            try await AccountStore.insertSynthetic(rows, on: app.db.sql)
            let users = try await User.query(on: app.db).filter(\.$id ~~ ids).sort(\.$email).all()
            XCTAssertEqual(users.map(\.email), ["synthetic-0@example.invalid", "synthetic-1@example.invalid"])
            XCTAssertEqual(users.map(\.passwordHash), ["hash-0", "hash-1"])
            XCTAssertEqual(users.map(\.nicknameKey), ["Synthetic0", "Synthetic1"].map(AccountRules.nicknameKey), "the key is the nickname's, as sign-up writes it")
            XCTAssertEqual(users.map(\.role), [.user, .user])
            XCTAssertEqual(users.first?.createdAt, stamp)
        }
    }
}
