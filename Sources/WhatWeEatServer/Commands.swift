import Accounts
import Banchan
import BurgerMap
import Fluent
import LookForRealBurgerApp
import Mates
import MenuGame
import Platform
import SesacStudyApp
import Site
public import Vapor

/// `whatweeat seed`: migrate, then load the catalogs (also done on every `serve`).
/// `whatweeat seed --synthetic [options]` also adds generated data for benchmarks: the command
/// walks the feature list and runs each feature's `SyntheticDataGenerator` whose options were
/// given (`--places`, `--reviews` … for the burger map, `--mates`, `--mate-pairs` … for mates), or
/// those that run by default when none were; `--seed N` makes the same data again.
/// `whatweeat seed --demo` also makes the demo account a newcomer signs in with
/// (`demo@example.com`, `demo-password`), never on a production server.
package struct SeedCommand: AnyAsyncCommand {
    package var help: String { "Creates or upgrades the database and loads the catalogs; --demo adds a demo account, --synthetic benchmark data." }

    /// The demo account `--demo` makes (README's "Run it" names it).
    package static let demoEmail = "demo@example.com", demoPassword = "demo-password", demoNickname = "데모"

    package init() {}

    var generators: [any SyntheticDataGenerator] { Features.all.compactMap { $0.syntheticData } }

    package func run(using context: inout CommandContext) async throws {
        var arguments = context.input.arguments
        var synthetic = false, demo = false
        var values: [String: String] = [:]
        let known = Set(generators.flatMap { $0.options.map(\.name) } + ["seed"])
        while !arguments.isEmpty {
            let argument = arguments.removeFirst()
            guard argument.hasPrefix("--") else { throw CommandFailure(message: "unexpected \(argument); see whatweeat seed --help") }
            let name = String(argument.dropFirst(2))
            if name == "synthetic" { synthetic = true; continue }
            if name == "demo" { demo = true; continue }
            guard known.contains(name) else {
                throw CommandFailure(message: "unknown option --\(name); options: --synthetic, " + known.sorted().map { "--\($0)" }.joined(separator: ", "))
            }
            guard !arguments.isEmpty, !arguments[0].hasPrefix("--") else { throw CommandFailure(message: "--\(name) needs a value") }
            values[name] = arguments.removeFirst()
        }
        guard synthetic || values.isEmpty else { throw CommandFailure(message: "generated data needs --synthetic") }
        let app = context.application
        if demo, app.settings.appEnvironment == .production {
            throw CommandFailure(message: "--demo makes an account with a published password: not on a production server (APP_ENV=production)")
        }
        try await prepareDatabase(app)
        context.console.info("Database ready and catalogs loaded.")
        if demo { context.console.info(try await Self.makeDemoAccount(app)) }
        guard synthetic else { return }
        let options = SyntheticOptions(values: values)
        let named = generators.filter { generator in generator.options.contains { options.has($0.name) } }
        for generator in named.isEmpty ? generators.filter(\.runsByDefault) : named {
            context.console.info(try await generator.generate(app, options, console: context.console))
        }
    }

    /// The demo account, made once (an account already there under its address is left alone).
    static func makeDemoAccount(_ app: Application) async throws -> String {
        let request = Request(application: app, on: app.eventLoopGroup.next())
        do {
            _ = try await request.accounts.signUp(email: demoEmail, password: demoPassword, nickname: demoNickname)
            return "Demo account: \(demoEmail) / \(demoPassword)"
        } catch let error as AppError where error.code == "email_taken" || error.code == "nickname_taken" {
            return "Demo account already there: \(demoEmail)"
        }
    }

    package func outputHelp(using context: inout CommandContext) {
        context.console.output("Usage: whatweeat seed [--demo] [--synthetic [options]]".consoleText())
        context.console.output(help.consoleText())
        context.console.output("  --demo       add the demo account \(Self.demoEmail) / \(Self.demoPassword) (not in production)".consoleText())
        context.console.output("  --synthetic  add generated data for benchmarks".consoleText())
        context.console.output("  --seed       random seed, for repeatable data (default 1)".consoleText())
        for generator in generators {
            for option in generator.options { context.console.output("  --\(option.name)  \(option.help)".consoleText()) }
        }
    }
}

/// Registers the commands beside Vapor's own `serve` (the default) and Fluent's `migrate`.
public func registerCommands(_ app: Application) {
    app.asyncCommands.use(SeedCommand(), as: "seed")
    app.asyncCommands.use(UserCommands(), as: "user")
    app.asyncCommands.use(MailCommands(), as: "mail")
    app.asyncCommands.use(SMSCommands(), as: "sms")
    // In place of Fluent's: the same questions, under the migration lock and the downgrade guard.
    app.asyncCommands.use(MigrateCommand(), as: "migrate")
    app.asyncCommands.use(MoveToPostgresCommand(), as: "migrate-to-postgres")
}

/// `whatweeat migrate [--revert] [--yes]`: lists the pending migrations (or the last batch, with
/// `--revert`) and asks before running them, one process at a time (`SafeMigrations`); a database
/// migrated by a newer version is refused. Answering no exits non-zero, so a script can tell.
package struct MigrateCommand: AsyncCommand {
    package struct Signature: CommandSignature {
        @Flag(name: "revert", help: "Reverts the last batch of migrations (their tables and columns go, with their data)")
        var revert: Bool
        package init() {}
    }

    package var help: String { "Runs the pending migrations (or reverts the last batch), after listing them and asking" }

    package init() {}

    package func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        try await SafeMigrations.holdingTheLock(app) {
            try await SafeMigrations.refuseNewerDatabase(app)
            let migrator = app.migrator
            try await migrator.setupIfNeeded().get()
            let planned = signature.revert ? try await migrator.previewRevertLastBatch().get() : try await migrator.previewPrepareBatch().get()
            guard !planned.isEmpty else {
                context.console.print(signature.revert ? "No migrations to revert." : "No new migrations.")
                return
            }
            context.console.print("The following migration(s) will be \(signature.revert ? "reverted" : "prepared"):")
            for (migration, _) in planned { context.console.print("\(signature.revert ? "-" : "+") \(migration.name)") }
            guard context.console.confirm("Would you like to continue?".consoleText(.warning)) else {
                throw CommandFailure(message: "migration cancelled: nothing changed")
            }
            if signature.revert { try await migrator.revertLastBatch().get() } else { try await migrator.prepareBatch().get() }
            context.console.print("Migration successful")
        }
    }
}
