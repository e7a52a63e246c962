import Fluent
import Foundation
import Platform
import SQLKit

/// Links mailed to a person (`account_links`): a password reset, a new address to confirm, a
/// change of address to undo. Each is kept only as
/// the SHA-256 of its token, works once (`useLink` is one conditional write, so of two racing
/// requests one wins) and until it expires; used and expired ones are pruned after a day.
extension AccountStore {
    typealias LinkColumn = LinkRow.CodingKeys

    /// What a link does when followed.
    package enum LinkPurpose: String, Codable, Sendable {
        case passwordReset = "password_reset"
        /// Confirms a new address (`email`) from its own inbox.
        case emailChange = "email_change"
        /// Puts the old address (`email`) back, from the old inbox, for seven days.
        case emailUndo = "email_undo"
    }

    static let linksTable = "account_links"
    static var links: SQLIdentifier { SQLIdentifier(linksTable) }

    /// A link as the rules read it.
    struct LinkRow: Codable, Sendable {
        let id: UUID
        let userID: UUID
        let purpose: LinkPurpose
        let tokenHash: String
        let expiresAt: Date
        let usedAt: Date?
        let createdAt: Date
        /// The address an `emailChange` link confirms, or an `emailUndo` link puts back.
        var email: String? = nil

        enum CodingKeys: String, TableColumn {
            case id, userID = "user_id", purpose, tokenHash = "token_hash", expiresAt = "expires_at", usedAt = "used_at"
            case createdAt = "created_at", email
        }
    }

    func createLink(for userID: UUID, purpose: LinkPurpose, tokenHash: String, expiresAt: Date, email: String? = nil, at time: Date) async throws {
        try await Self.insertLink(LinkRow(id: UUID(), userID: userID, purpose: purpose, tokenHash: tokenHash, expiresAt: expiresAt,
                                          usedAt: nil, createdAt: time, email: email), on: sql)
    }

    private static func insertLink(_ row: LinkRow, on sql: any SQLDatabase) async throws {
        try await sql.insert(row, into: linksTable)
    }

    /// Marks a link used with one conditional write: false when another request used it first.
    private static func use(_ link: UUID, at time: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await !sql.update(links).set(SQLIdentifier(LinkColumn.usedAt), to: SQLBind(time))
            .where(SQLIdentifier(LinkColumn.id), .equal, SQLBind(link)).where(SQLIdentifier(LinkColumn.usedAt), .is, SQLLiteral.null)
            .returning(SQLIdentifier(LinkColumn.id)).all().isEmpty
    }

    /// Retires the account's unused links of `purposes`.
    private static func retire(_ purposes: [LinkPurpose], of userID: UUID, at time: Date, on sql: any SQLDatabase) async throws {
        try await sql.update(links).set(SQLIdentifier(LinkColumn.usedAt), to: SQLBind(time))
            .where(SQLIdentifier(LinkColumn.userID), .equal, SQLBind(userID))
            .where(SQLIdentifier(LinkColumn.purpose), .in, SQLBind.group(purposes.map(\.rawValue)))
            .where(SQLIdentifier(LinkColumn.usedAt), .is, SQLLiteral.null).run()
    }

    /// Moves the account to the address an `emailChange` link confirms, in one transaction: the
    /// link used (nil when another request used it first: nothing changes), other pending changes
    /// retired, the address written (409 `email_taken` if someone took it meanwhile) and the undo
    /// link for the old address stored. Announced once committed.
    func changeEmail(of user: User, to email: String, usingLink link: UUID, undo: LinkRow, at time: Date) async throws -> Bool {
        let userID = try user.requireID()
        user.email = email
        let changed: Bool
        do {
            changed = try await database.writeTransaction { transaction in
                let sql = transaction.sql
                guard try await Self.use(link, at: time, on: sql) else { return false }
                try await Self.retire([.emailChange], of: userID, at: time, on: sql)
                try await user.save(on: transaction)
                try await Self.insertLink(undo, on: sql)
                return true
            }
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("email_taken")
        }
        if changed { await accountChanged(userID) }
        return changed
    }

    /// Puts back the address an `emailUndo` link names, in one transaction: the link used (nil when
    /// used already), every other email link retired, the address written back (409 `email_taken`
    /// if another account has it now) and every session of the account ended — whoever changed it
    /// may still be signed in. Announced once committed; the sessions it ended.
    func undoEmailChange(of user: User, to email: String, usingLink link: UUID, at time: Date) async throws -> [UUID]? {
        let userID = try user.requireID()
        user.email = email
        let ended: [UUID]?
        do {
            ended = try await database.writeTransaction { transaction in
                let sql = transaction.sql
                guard try await Self.use(link, at: time, on: sql) else { return nil }
                try await Self.retire([.emailChange, .emailUndo], of: userID, at: time, on: sql)
                try await user.save(on: transaction)
                return try await Self.revokeLiveSessions(of: userID, at: time, on: sql)
            }
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("email_taken")
        }
        guard let ended else { return nil }
        await accountChanged(userID)
        await sessionsEnded(ended, forgetting: false)
        return ended
    }

    func link(tokenHash: String) async throws -> LinkRow? {
        try await sql.select().columns(LinkColumn.allCases).from(Self.links)
            .where(SQLIdentifier(LinkColumn.tokenHash), .equal, SQLBind(tokenHash))
            .first(decoding: LinkRow.self)
    }

    /// Sets a new password by a reset link, in one transaction: the link used (false when another
    /// request used it first: nothing changes), the account's other reset links retired, the hash
    /// written and every live session of the account ended; announced once committed. The
    /// sessions it ended, nil when the link was used already.
    func resetPassword(of user: User, toHash hash: String, usingLink link: UUID, at time: Date) async throws -> [UUID]? {
        let userID = try user.requireID()
        user.passwordHash = hash
        let ended: [UUID]? = try await database.writeTransaction { transaction in
            let sql = transaction.sql
            guard try await Self.use(link, at: time, on: sql) else { return nil }
            try await Self.retire([.passwordReset], of: userID, at: time, on: sql)
            try await user.save(on: transaction)
            return try await Self.revokeLiveSessions(of: userID, at: time, on: sql)
        }
        guard let ended else { return nil }
        await accountChanged(userID)
        await sessionsEnded(ended, forgetting: false)  // the account's change forgot them all
        return ended
    }

    /// Forgets links used or expired before `cutoff`. How many went.
    @discardableResult
    func pruneLinks(before cutoff: Date) async throws -> Int {
        try await sql.delete(from: Self.links)
            .where(group: { $0.where(SQLIdentifier(LinkColumn.usedAt), .lessThan, SQLBind(cutoff))
                .orWhere(SQLIdentifier(LinkColumn.expiresAt), .lessThan, SQLBind(cutoff)) })
            .returning(SQLIdentifier(LinkColumn.id)).all().count
    }
}

/// `account_links`: mailed links (a password reset), kept as hashes.
struct CreateAccountLinks: NamedMigration {
    func prepare(on database: any Database) async throws {
        typealias Column = AccountStore.LinkColumn
        try await database.schema(AccountStore.linksTable)
            .id()
            .field(Column.userID.fieldKey, .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field(Column.purpose.fieldKey, .string, .required)
            .field(Column.tokenHash.fieldKey, .string, .required)
            .field(Column.expiresAt.fieldKey, .datetime, .required)
            .field(Column.usedAt.fieldKey, .datetime)
            .field(Column.createdAt.fieldKey, .datetime, .required)
            .unique(on: Column.tokenHash.fieldKey)
            .create()
        try await database.sql.create(index: "account_links_user_id").on(AccountStore.linksTable).column(Column.userID.rawValue).run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(AccountStore.linksTable).delete()
    }

    init() {}
}

/// The address an email link confirms or puts back.
struct AddAccountLinkEmail: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(AccountStore.linksTable).fields([(AccountStore.LinkColumn.email, .string)], optional: true).update()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("ALTER TABLE \(ident: AccountStore.linksTable) DROP COLUMN \(ident: AccountStore.LinkColumn.email.rawValue)").run()
    }

    init() {}
}
