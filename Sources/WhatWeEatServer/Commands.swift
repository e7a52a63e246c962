import Accounts
import Banchan
import BanchanApp
import BurgerMap
import LookForRealBurgerApp
import Mates
import MenuGame
import MenuGameApp
import Notifications
import Platform
import SesacStudyApp
import SocketIO
import Vapor

/// `whatweeat seed`: migrate, then load the catalogs (also done on every `serve`).
/// `whatweeat seed --synthetic --places N --reviews M` adds generated burger places and reviews
/// for scale benchmarks (docs/PERFORMANCE.md); `--mates N --mate-pairs P` people searching
/// around Seoul and pairs already matched (alone, without burger options, only those).
package struct SeedCommand: AsyncCommand {
    package struct Signature: CommandSignature {
        package init() {}

        @Flag(name: "synthetic", help: "Also add generated burger places, reviewers and reviews (for benchmarks).") package var synthetic: Bool
        @Option(name: "places", help: "Generated places (default 1,000).") package var places: Int?
        @Option(name: "reviews", help: "Generated reviews (default 10,000).") package var reviews: Int?
        @Option(name: "users", help: "Generated reviewers (default reviews ÷ 50, at least 600).") package var users: Int?
        @Option(name: "seed", help: "Random seed, for repeatable data (default 1).") package var seed: Int?
        @Option(name: "reader-password", help: "Lets the generated reader sign in with this password (benchmarks of the feed).")
        package var readerPassword: String?
        @Option(name: "mates", help: "Generated mates searching around Seoul City Hall.") package var mates: Int?
        @Option(name: "mate-pairs", help: "Generated pairs of mates already matched.") package var matePairs: Int?
        @Option(name: "mates-password", help: "Lets the generated mates sign in with this password.") package var matesPassword: String?
    }

    package var help: String { "Creates or upgrades the database and loads the catalogs." }

    package func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        try await prepareDatabase(app)
        context.console.info("Database ready and catalogs loaded.")
        guard signature.synthetic else { return }
        if signature.mates != nil || signature.matePairs != nil {
            let searching = signature.mates ?? 0, pairs = signature.matePairs ?? 0
            guard (0...1_000_000).contains(searching), (0...100_000).contains(pairs) else {
                throw CommandFailure(message: "--mates takes 0…1,000,000, --mate-pairs 0…100,000")
            }
            let started = Date()
            let hash = try await app.passwordHasher.hash(signature.matesPassword ?? SecureRandom.token())
            let seed = UInt64(max(0, signature.seed ?? 1))
            try await MatesSynthetic(searching: searching, pairs: pairs, seed: seed).fill(app.db, passwordHash: hash)
            context.console.info("Added \(searching) mates searching and \(pairs) matched pairs in \(Int(Date().timeIntervalSince(started))) s: "
                + "\(MatesSynthetic.email(searching: 0, seed: seed)), \(MatesSynthetic.email(paired: 0, seed: seed)) …")
            guard signature.places != nil || signature.reviews != nil else { return }
        }
        let places = signature.places ?? 1_000, reviews = signature.reviews ?? 10_000
        let users = signature.users ?? max(600, reviews / 50)
        guard (1...10_000_000).contains(places), (0...100_000_000).contains(reviews), (1...10_000_000).contains(users) else {
            throw CommandFailure(message: "--places and --users take 1…10,000,000, --reviews 0…100,000,000")
        }
        let console = context.console
        let onTerminal = isatty(STDOUT_FILENO) != 0
        let started = Date()
        let synthetic = BurgerMapSynthetic(places: places, reviews: reviews, users: users, seed: UInt64(max(0, signature.seed ?? 1))) { stage, done, total in
            guard onTerminal else { return }
            let width = 30, filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            console.output("\r\(stage.padding(toLength: 8, withPad: " ", startingAt: 0)) \(bar) \(done)/\(total)".consoleText(), newLine: done == total)
        }
        let locked = try await app.passwordHasher.hash(SecureRandom.token())
        var reader = locked
        if let password = signature.readerPassword { reader = try await app.passwordHasher.hash(password) }
        try await synthetic.fill(app.db, passwordHash: locked, readerPasswordHash: reader)
        console.info("Added \(places) places, \(reviews) reviews and \(users) reviewers in \(Int(Date().timeIntervalSince(started))) s; "
            + "\(BurgerMapSynthetic.readerEmail) follows \(min(users, BurgerMapSynthetic.readerFollows)) of them.")
    }
}

/// `whatweeat user create --admin --email … --nickname … [--password …]`.
package struct CreateUserCommand: AsyncCommand {
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
package struct UserCommands: AsyncCommandGroup {
    package var commands: [String: any AnyAsyncCommand] { ["create": CreateUserCommand()] }
    package var help: String { "Manages accounts." }
}

/// Registers the commands beside Vapor's own `serve` (the default) and Fluent's `migrate`.
public func registerCommands(_ app: Application) {
    app.asyncCommands.use(SeedCommand(), as: "seed")
    app.asyncCommands.use(UserCommands(), as: "user")
}
