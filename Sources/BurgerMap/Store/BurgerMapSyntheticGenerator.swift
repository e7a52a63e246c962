import Fluent
import Foundation
import Platform
import Vapor
#if canImport(Glibc)
import Glibc
#endif

/// `seed --synthetic [--places N] [--reviews M] [--users U] [--reader-password P]`: the burger
/// map's benchmark data (`BurgerMapSynthetic`); what `--synthetic` alone generates.
struct BurgerMapSyntheticGenerator: SyntheticDataGenerator {
    let options = [
        (name: "places", help: "Generated places (default 1,000)."),
        (name: "reviews", help: "Generated reviews (default 10,000)."),
        (name: "users", help: "Generated reviewers (default reviews ÷ 50, at least 600)."),
        (name: "reader-password", help: "Lets the generated reader sign in with this password (benchmarks of the feed)."),
    ]
    let runsByDefault = true

    func generate(_ app: Application, _ options: SyntheticOptions, console: any Console) async throws -> String {
        let places = try options.integer("places", default: 1_000, in: 1...10_000_000)
        let reviews = try options.integer("reviews", default: 10_000, in: 0...100_000_000)
        let users = try options.integer("users", default: max(600, reviews / 50), in: 1...10_000_000)
        let onTerminal = isatty(STDOUT_FILENO) != 0
        let started = ContinuousClock.now
        let synthetic = BurgerMapSynthetic(places: places, reviews: reviews, users: users, seed: options.seed) { stage, done, total in
            guard onTerminal else { return }
            let width = 30, filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            console.output("\r\(stage.padding(toLength: 8, withPad: " ", startingAt: 0)) \(bar) \(done)/\(total)".consoleText(), newLine: done == total)
        }
        let locked = try await app.passwordHasher.hash(SecureRandom.token())
        var reader = locked
        if let password = options.string("reader-password") { reader = try await app.passwordHasher.hash(password) }
        try await synthetic.fill(app.db, application: app, passwordHash: locked, readerPasswordHash: reader)
        return "Added \(places) places, \(reviews) reviews and \(users) reviewers in \((ContinuousClock.now - started).components.seconds) s; "
            + "\(BurgerMapSynthetic.readerEmail) follows \(min(users, BurgerMapSynthetic.readerFollows)) of them."
    }
}
