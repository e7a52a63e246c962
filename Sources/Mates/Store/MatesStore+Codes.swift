import Fluent
import FluentSQL
import Foundation
import Platform
import SQLKit

/// The one-time codes of `MatesStore`'s aggregate: `mates_verification_codes`, read and written only
/// here, each column named once (`CodeColumn`, the row's coding keys: every statement).
extension MatesStore {
    typealias CodeColumn = CodeRow.CodingKeys

    /// What a code is for: a code sent for one cannot be used for the other.
    enum CodePurpose: String, Codable, Sendable {
        /// Verifying a phone or an address for mates (`POST /api/v1/mates/verification`).
        case verification = "verify"
        /// "Forgot password" by the verified phone (`POST /api/v1/auth/password-reset/phone`).
        case passwordReset = "password_reset"
    }

    /// A code sent, as the store reads and writes it (only its hash is kept).
    struct CodeRow: Decodable, Sendable, Equatable {
        let id: UUID
        let userID: UUID
        let channel: String
        let purpose: CodePurpose
        let destinationHash: String
        let masked: String
        let clientAddress: String
        let codeHash: String
        let attempts: Int
        let expiresAt: Date
        let usedAt: Date?
        let createdAt: Date

        enum CodingKeys: String, TableColumn {
            case id, channel, purpose, masked, attempts
            case userID = "user_id", destinationHash = "destination_hash", clientAddress = "client_address", codeHash = "code_hash"
            case expiresAt = "expires_at", usedAt = "used_at", createdAt = "created_at"
        }

        init(id: UUID, userID: UUID, channel: String, purpose: CodePurpose, destinationHash: String, masked: String, clientAddress: String,
             codeHash: String, attempts: Int, expiresAt: Date, usedAt: Date?, createdAt: Date) {
            self.id = id
            self.userID = userID
            self.channel = channel
            self.purpose = purpose
            self.destinationHash = destinationHash
            self.masked = masked
            self.clientAddress = clientAddress
            self.codeHash = codeHash
            self.attempts = attempts
            self.expiresAt = expiresAt
            self.usedAt = usedAt
            self.createdAt = createdAt
        }

    }

    /// One limit on sending codes: at most `limit` codes counted by `counted` within `window`.
    struct CodeSendLimit: Sendable {
        enum Counted: Hashable, Sendable {
            /// Codes to one inbox (the destination's hash).
            case destination(String)
            /// Codes for one account.
            case account(UUID)

            var column: CodeColumn {
                switch self {
                case .destination: return CodeColumn.destinationHash
                case .account: return CodeColumn.userID
                }
            }

            /// Bound as its column's type (`user_id` is a UUID: compared as one, not as its text).
            var value: SQLBind {
                switch self {
                case .destination(let hash): return SQLBind(hash)
                case .account(let user): return SQLBind(user)
                }
            }

            /// What PostgreSQL's advisory lock for this count is named by.
            var lockKey: String {
                switch self {
                case .destination(let hash): return "mates_code|\(CodeColumn.destinationHash.stringValue)|\(hash)"
                case .account(let user): return "mates_code|\(CodeColumn.userID.stringValue)|\(user.uuidString)"
                }
            }
        }

        let counted: Counted
        let window: TimeInterval
        let limit: Int
        /// The error when it is reached (with the seconds, minutes and hours to wait).
        let code: String
    }

    private var codes: SQLIdentifier { SQLIdentifier(MatesStore.Table.codes) }

    /// Writes `row` if it keeps every limit, in one statement; false when a limit stopped it. On
    /// PostgreSQL under advisory locks of what the limits count, since each statement there sees
    /// only what was committed before it began.
    func insertCode(_ row: CodeRow, within limits: [CodeSendLimit], now: Date) async throws -> Bool {
        try await database.writeTransaction { transaction in
            let sql = transaction.sql
            if sql.dialect.name == "postgresql" {
                // Always in the same order, so two sends cannot wait for each other's lock.
                for key in Set(limits.map(\.counted.lockKey)).sorted() {
                    try await sql.raw("SELECT pg_advisory_xact_lock(hashtext(\(bind: key)))").run()
                }
            }
            let conditions: [SQLQueryString] = limits.map { limit in
                """
                (SELECT COUNT(*) FROM \(self.codes) WHERE \(ident: limit.counted.column) = \(limit.counted.value)
                 AND \(ident: CodeColumn.createdAt) > \(bind: now.addingTimeInterval(-limit.window))) < \(literal: limit.limit)
                """
            }
            // Each value beside its column, so the two lists cannot fall out of step.
            let written: [(CodeColumn, any SQLExpression)] = [
                (.id, SQLBind(row.id)), (.userID, SQLBind(row.userID)), (.channel, SQLBind(row.channel)), (.purpose, SQLBind(row.purpose.rawValue)),
                (.destinationHash, SQLBind(row.destinationHash)), (.masked, SQLBind(row.masked)), (.clientAddress, SQLBind(row.clientAddress)),
                (.codeHash, SQLBind(row.codeHash)), (.attempts, SQLBind(row.attempts)), (.expiresAt, SQLBind(row.expiresAt)),
                (.usedAt, SQLBind(row.usedAt)), (.createdAt, SQLBind(row.createdAt)),
            ]
            let inserted = try await sql.raw("""
                INSERT INTO \(self.codes) (\(SQLList(written.map(\.0))))
                SELECT \(SQLList(written.map(\.1))) WHERE \(conditions.joined(separator: " AND "))
                RETURNING \(ident: CodeColumn.id)
                """).all()
            return !inserted.isEmpty
        }
    }

    /// Removes a code (one that could not be delivered: it must not count or be confirmable).
    /// Forgets codes sent before `cutoff` that were used or have expired (at least a day old, so
    /// no daily budget still counts them). How many went.
    func pruneCodes(before cutoff: Date) async throws -> Int {
        try await sql.delete(from: codes)
            .where(SQLIdentifier(CodeColumn.createdAt), .lessThan, SQLBind(cutoff))
            .where(group: { $0.where(SQLIdentifier(CodeColumn.usedAt), .isNot, SQLLiteral.null)
                .orWhere(SQLIdentifier(CodeColumn.expiresAt), .lessThan, SQLBind(cutoff)) })
            .returning(SQLIdentifier(CodeColumn.id)).all().count
    }

    func deleteCode(_ id: UUID) async throws {
        try await sql.delete(from: codes).where(SQLIdentifier(CodeColumn.id), .equal, SQLBind(id)).run()
    }

    /// Of the limits reached, the one with the longest wait and the wait in seconds; nil when none is.
    func longestWait(of limits: [CodeSendLimit], now: Date) async throws -> (limit: CodeSendLimit, seconds: Int)? {
        var reached: (limit: CodeSendLimit, seconds: Int)?
        for limit in limits {
            let times = try await sql.select().column(SQLIdentifier(CodeColumn.createdAt)).from(codes)
                .where(SQLIdentifier(limit.counted.column), .equal, limit.counted.value)
                .where(SQLIdentifier(CodeColumn.createdAt), .greaterThan, SQLBind(now.addingTimeInterval(-limit.window)))
                .orderBy(CodeColumn.createdAt, .descending).limit(limit.limit)
                .all(decodingColumn: CodeColumn.createdAt, as: Date.self)
            guard times.count >= limit.limit, let oldest = times.last else { continue }
            let wait = max(1, Int(oldest.addingTimeInterval(limit.window).timeIntervalSince(now).rounded(.up)))
            if wait > reached?.seconds ?? 0 { reached = (limit, wait) }
        }
        return reached
    }

    /// The newest code for `purpose` sent to this destination for this account.
    func newestCode(for user: UUID, destinationHash: String, purpose: CodePurpose) async throws -> CodeRow? {
        try await sql.select().columns(CodeColumn.allCases).from(codes)
            .where(SQLIdentifier(CodeColumn.userID), .equal, SQLBind(user))
            .where(SQLIdentifier(CodeColumn.destinationHash), .equal, SQLBind(destinationHash))
            .where(SQLIdentifier(CodeColumn.purpose), .equal, SQLBind(purpose.rawValue))
            .orderBy(CodeColumn.createdAt, .descending).limit(1)
            .first(decoding: CodeRow.self)
    }

    /// Counts a wrong try with a conditional update, so parallel guesses cannot share one: the
    /// tries used after it, or nil when `maximum` were used already.
    func countWrongTry(_ id: UUID, maximum: Int) async throws -> Int? {
        let attempts = SQLIdentifier(CodeColumn.attempts)
        return try await sql.update(codes).set(attempts, to: SQLBinaryExpression(attempts, .add, SQLLiteral.numeric("1")))
            .where(SQLIdentifier(CodeColumn.id), .equal, SQLBind(id)).where(attempts, .lessThan, SQLBind(maximum))
            .returning(attempts).all(decodingColumn: CodeColumn.attempts, as: Int.self).first
    }

    /// Uses a code: false when it was used already (a parallel confirmation took it).
    func takeCode(_ id: UUID, at now: Date) async throws -> Bool {
        let taken = try await sql.update(codes).set(SQLIdentifier(CodeColumn.usedAt), to: SQLBind(now))
            .where(SQLIdentifier(CodeColumn.id), .equal, SQLBind(id)).where(SQLIdentifier(CodeColumn.usedAt), .is, SQLLiteral.null)
            .returning(SQLIdentifier(CodeColumn.id)).all()
        return !taken.isEmpty
    }
}

/// What each code is for (`MatesStore.CodePurpose`): the codes sent before were all verifications.
struct AddCodePurpose: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(MatesStore.Table.codes)
            .field(MatesStore.CodeColumn.purpose.fieldKey, .string, .required,
                   .sql(.default(MatesStore.CodePurpose.verification.rawValue))).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(MatesStore.Table.codes).deleteField(MatesStore.CodeColumn.purpose.fieldKey).update()
    }
}
