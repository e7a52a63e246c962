import Accounts
import Fluent
import Messaging
import Platform
import Site
import Vapor

/// The operator's commands on people and providers: `whatweeat user create | reset-password |
/// list | promote | demote | suspend | unsuspend`, `whatweeat mail test`, `whatweeat sms test`.
/// Each works on the site `DATA_DIR`/`DATABASE_URL` name and refuses to make one where there is
/// none (`OperatorCommands.openSite`); each change is audited with no actor (the audit log shows
/// "the command line").
struct UserCommands: AsyncCommandGroup {
    package var commands: [String: any AnyAsyncCommand] {
        ["create": CreateUserCommand(), "reset-password": ResetPasswordCommand(), "list": ListUsersCommand(),
         "promote": RoleCommand(role: .admin), "demote": RoleCommand(role: .user),
         "suspend": SuspensionCommand(suspending: true), "unsuspend": SuspensionCommand(suspending: false)]
    }
    package var help: String { "Manages accounts." }
}

package enum OperatorCommands {
    /// Migrates a site that exists (a new version may have migrations pending), and refuses to
    /// start one: an operator in the wrong folder, or without the service's environment, would
    /// otherwise make an empty database and act on it.
    /// (A SQLite file is looked for by `main`, before anything opens it: `Invocation.missingSite`.)
    static func openSite(_ app: Application) async throws {
        if case .postgres = app.settings.database, try await SafeMigrations.appliedMigrations(app.db).isEmpty {
            throw CommandFailure(message: "no WhatWeEat data in \(app.settings.database.summary); set DATABASE_URL as the server has it, or start the server once there")
        }
        try await prepareDatabase(app)
    }

    /// The account with this address, on a site that exists.
    static func account(_ rawEmail: String, _ app: Application) async throws -> User {
        try await openSite(app)
        let email = AccountRules.normalizeEmail(rawEmail)
        guard let user = try await AccountStore(database: app.db, application: app).user(email: email) else {
            throw CommandFailure(message: "no account has the address \(email)")
        }
        return user
    }

    /// An account rule broken, as one line in English.
    static func failure(_ error: AppError, _ app: Application) -> CommandFailure {
        CommandFailure(message: app.translator.text(error.messageKey, .en, error.arguments))
    }
}

/// `whatweeat user create --admin --email … --nickname … [--password …]`.
struct CreateUserCommand: AsyncCommand {
    package struct Signature: CommandSignature {
        package init() {}

        @Option(name: "email", help: "Email address to log in with.") package var email: String?
        @Option(name: "nickname", help: "Nickname shown to others (1–20 characters).") package var nickname: String?
        @Option(name: "password", help: "Password (8+ characters); asked for when left out.") package var password: String?
        @Flag(name: "admin", help: "Give the account the admin role.") package var admin: Bool
    }

    package var help: String { "Creates an account, for example the first administrator." }

    package func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        try await OperatorCommands.openSite(app)
        let email = signature.email ?? context.console.ask("Email")
        let nickname = signature.nickname ?? context.console.ask("Nickname")
        let password = signature.password ?? context.console.ask("Password", isSecure: true)
        let request = Request(application: app, on: app.eventLoopGroup.next())
        do {
            let user = try await request.accounts.signUp(email: email, password: password, nickname: nickname,
                                                          role: signature.admin ? .admin : .user)
            context.console.info("Created \(user.role.rawValue) \(user.email) (\(user.nickname)).")
        } catch let error as AppError {
            throw CommandFailure(message: app.translator.text(error.messageKey, .en, error.arguments))
        }
    }
}

/// `whatweeat user reset-password --email … [--password …]`: for someone locked out (no mail, a
/// lost inbox). Without `--password` it prints a one-time link (30 minutes) for the operator to
/// pass on; with it, it sets that password. Either way every session of the account ends once the
/// password changes, the action is audited, and a suspended account is refused.
struct ResetPasswordCommand: AsyncCommand {
    package struct Signature: CommandSignature {
        package init() {}

        @Option(name: "email", help: "The account's email address.") package var email: String?
        @Option(name: "password", help: "Set this password now (8+ characters) instead of printing a link.") package var password: String?
    }

    package var help: String { "Prints a one-time password reset link for an account, or sets its password." }

    package func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        let user = try await OperatorCommands.account(signature.email ?? context.console.ask("Email"), app)
        let request = Request(application: app, on: app.eventLoopGroup.next())
        do {
            if let password = signature.password {
                try await request.accounts.operatorSetPassword(of: user, to: password, by: nil)
                context.console.info("Password set for \(user.email) (\(user.nickname)); every session of the account ended.")
            } else {
                let link = try await request.accounts.operatorResetLink(for: user, by: nil, mailing: false)
                context.console.info("One-time link for \(user.email) (\(user.nickname)), valid 30 minutes:")
                context.console.output(link.consoleText())
            }
        } catch let error as AppError {
            throw CommandFailure(message: app.translator.text(error.messageKey, .en, error.arguments))
        }
    }
}

/// `whatweeat user list [--search TEXT] [--limit N]`: accounts newest first, one per line.
struct ListUsersCommand: AsyncCommand {
    package struct Signature: CommandSignature {
        package init() {}
        @Option(name: "search", help: "Addresses starting with it or nicknames containing it.") package var search: String?
        @Option(name: "limit", help: "How many (default 50, at most 10000).") package var limit: Int?
    }

    package var help: String { "Lists accounts, newest first: address, nickname, role, created, suspended." }

    package func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        try await OperatorCommands.openSite(app)
        let limit = signature.limit ?? 50
        guard (1...10_000).contains(limit) else { throw CommandFailure(message: "--limit must be from 1 to 10000") }
        let found = try await AccountStore(database: app.db, application: app).find(signature.search ?? "", limit: limit)
        for account in found {
            let created = account.createdAt.map { $0.formatted(.iso8601.year().month().day()) } ?? "-"
            let suspended = account.suspendedAt == nil ? "" : "\tsuspended"
            context.console.output("\(account.email)\t\(account.nickname)\t\(account.role.rawValue)\t\(created)\(suspended)".consoleText())
        }
        context.console.info("\(found.count) account(s)")
    }
}

/// `whatweeat user promote --email …` / `demote --email …`: the admin role given or taken (never
/// the last administrator's). Audited.
struct RoleCommand: AsyncCommand {
    package struct Signature: CommandSignature {
        package init() {}
        @Option(name: "email", help: "The account's email address.") package var email: String?
    }

    let role: Role
    package var help: String { role == .admin ? "Makes an account an administrator." : "Takes the administrator role from an account." }

    package func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        let user = try await OperatorCommands.account(signature.email ?? context.console.ask("Email"), app)
        let request = Request(application: app, on: app.eventLoopGroup.next())
        do {
            try await request.accounts.changeRole(of: user, to: role, by: nil)
        } catch let error as AppError { throw OperatorCommands.failure(error, app) }
        context.console.info("\(user.email) (\(user.nickname)) is now \(role == .admin ? "an administrator" : "a member").")
    }
}

/// `whatweeat user suspend --email … --reason …` / `unsuspend --email …`: as the console does
/// (sessions and sockets end; an administrator is not suspended). Audited.
struct SuspensionCommand: AsyncCommand {
    package struct Signature: CommandSignature {
        package init() {}
        @Option(name: "email", help: "The account's email address.") package var email: String?
        @Option(name: "reason", help: "Told to the person at sign-in (suspend).") package var reason: String?
    }

    let suspending: Bool
    package var help: String { suspending ? "Suspends an account (it cannot sign in; its sessions end)." : "Lifts an account's suspension." }

    package func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        let user = try await OperatorCommands.account(signature.email ?? context.console.ask("Email"), app)
        let request = Request(application: app, on: app.eventLoopGroup.next())
        do {
            let reason = suspending ? try AdminModeration.reason(signature.reason ?? context.console.ask("Reason")) : ""
            try await request.accounts.setSuspension(of: user, suspended: suspending, reason: reason, by: nil)
        } catch let error as AppError { throw OperatorCommands.failure(error, app) }
        context.console.info("\(user.email) (\(user.nickname)) is \(suspending ? "suspended" : "no longer suspended").")
    }
}

/// `whatweeat mail test --to ADDRESS`: one message through the configured sender, to see that
/// mail leaves (a wrong password or a closed port fails here, not on someone's reset). Audited.
struct MailCommands: AsyncCommandGroup {
    package var commands: [String: any AnyAsyncCommand] { ["test": MailTestCommand()] }
    package var help: String { "Checks the mail sender." }
}

struct MailTestCommand: AsyncCommand {
    package struct Signature: CommandSignature {
        package init() {}
        @Option(name: "to", help: "Where the test message goes.") package var to: String?
    }

    package var help: String { "Sends one test message through SMTP_URL's server." }

    package func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        try await OperatorCommands.openSite(app)
        guard let to = signature.to, AccountRules.emailViolation(AccountRules.normalizeEmail(to)) == nil else {
            throw CommandFailure(message: "--to needs an e-mail address")
        }
        guard app.mailDelivery != .none else { throw CommandFailure(message: "this server sends no mail (SMTP_URL unset or MAIL_DELIVERY=none)") }
        try await app.mail.send(MailMessage(to: AccountRules.normalizeEmail(to), subject: "[WhatWeEat] test message",
                                            text: "This message was sent by `whatweeat mail test` from \(app.settings.publicURL)."))
        try await AuditLog(database: app.db).record(AuditEntry(actorID: nil, action: "operations.mail.test", subjectType: "mail",
                                                               subjectID: app.mailDelivery.rawValue, before: nil, after: ["sent": "1"], at: app.siteClock()))
        context.console.info("Sent by \(app.mailDelivery.rawValue) to \(to).")
    }
}

/// `whatweeat sms test --to NUMBER`: one text through the configured provider. Audited.
struct SMSCommands: AsyncCommandGroup {
    package var commands: [String: any AnyAsyncCommand] { ["test": SMSTestCommand()] }
    package var help: String { "Checks the text-message sender." }
}

struct SMSTestCommand: AsyncCommand {
    package struct Signature: CommandSignature {
        package init() {}
        @Option(name: "to", help: "The phone number the test text goes to (010-…, +82…).") package var to: String?
    }

    package var help: String { "Sends one test text message through SMS_URL's provider (the log on a development server without one)." }

    package func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        try await OperatorCommands.openSite(app)
        guard let raw = signature.to, let phone = try? app.passwordResetCodes?.normalizedPhone(raw, app: app) else {
            throw CommandFailure(message: "--to needs a phone number this server texts (MATES_PHONE_COUNTRIES)")
        }
        guard AccountService.offersPhoneReset(app) else { throw CommandFailure(message: "this server sends no text messages (SMS_URL unset)") }
        try await app.codeSender.send(OneTimeCode(channel: .phone, destination: phone, code: "",
                                                  text: "[WhatWeEat] test message from `whatweeat sms test`", subject: "test"))
        try await AuditLog(database: app.db).record(AuditEntry(actorID: nil, action: "operations.sms.test", subjectType: "sms",
                                                               subjectID: "test", before: nil, after: ["sent": "1"], at: app.siteClock()))
        context.console.info("Sent a test text to \(phone).")
    }
}
