import Fluent
import Foundation
import Platform
import Vapor

/// `seed --synthetic --mates N [--mate-pairs P] [--mates-password P]`: people searching around
/// Seoul and pairs already matched (`MatesSynthetic`), for the mates benchmarks.
struct MatesSyntheticGenerator: SyntheticDataGenerator {
    let options = [
        (name: "mates", help: "Generated mates searching around Seoul City Hall."),
        (name: "mate-pairs", help: "Generated pairs of mates already matched."),
        (name: "mates-password", help: "Lets the generated mates sign in with this password."),
    ]

    func generate(_ app: Application, _ options: SyntheticOptions, console: any Console) async throws -> String {
        let searching = try options.integer("mates", default: 0, in: 0...1_000_000)
        let pairs = try options.integer("mate-pairs", default: 0, in: 0...100_000)
        let started = ContinuousClock.now
        let hash = try await app.passwordHasher.hash(options.string("mates-password") ?? SecureRandom.token())
        try await MatesSynthetic(searching: searching, pairs: pairs, seed: options.seed).fill(app.db, passwordHash: hash, now: app.matesEnvironment.now())
        return "Added \(searching) mates searching and \(pairs) matched pairs in \((ContinuousClock.now - started).components.seconds) s: "
            + "\(MatesSynthetic.email(searching: 0, seed: options.seed)), \(MatesSynthetic.email(paired: 0, seed: options.seed)) …"
    }
}
