import Vapor

/// `whatweeat seed`: migrate, then load the catalogs (also done on every `serve`).
struct SeedCommand: AsyncCommand {
    struct Signature: CommandSignature {}
    var help: String { "Creates or upgrades the database and loads the catalogs." }

    func run(using context: CommandContext, signature: Signature) async throws {
        try await prepareDatabase(context.application)
        context.console.info("Database ready and catalogs loaded.")
    }
}

/// `whatweeat user create --admin --email … --nickname … [--password …]`.
struct CreateUserCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "email", help: "Email address to log in with.") var email: String?
        @Option(name: "nickname", help: "Nickname shown to others (2–20 characters).") var nickname: String?
        @Option(name: "password", help: "Password (8+ characters); asked for when left out.") var password: String?
        @Flag(name: "admin", help: "Give the account the admin role.") var admin: Bool
    }

    var help: String { "Creates an account, for example the first administrator." }

    func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        try await prepareDatabase(app)
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

/// A command that could not do its job, for a reason the operator can fix; printed as one line.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

struct UserCommands: AsyncCommandGroup {
    var commands: [String: any AnyAsyncCommand] { ["create": CreateUserCommand()] }
    var help: String { "Manages accounts." }
}

/// Registers the commands beside Vapor's own `serve` (the default) and Fluent's `migrate`.
public func registerCommands(_ app: Application) {
    app.asyncCommands.use(SeedCommand(), as: "seed")
    app.asyncCommands.use(UserCommands(), as: "user")
}
