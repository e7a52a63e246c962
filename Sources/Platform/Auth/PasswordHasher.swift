import NIOConcurrencyHelpers
public import Vapor

/// bcrypt on a pool of its own, so hashing never blocks an event loop and a flood of logins
/// cannot take every core: the pool has half the cores (at least one thread), and at most
/// `maxWaiting` checks wait for it; past that the answer is 429 at once, before any work.
public final class BcryptHasher: Sendable {
    package let cost: Int
    package let pool: NIOThreadPool
    let maxWaiting: Int
    private let waiting = NIOLockedValueBox(0)
    /// Compared against when the email is unknown, so that answer takes as long as a wrong password.
    let decoyHash: String

    public init(cost: Int, threads: Int = max(1, System.coreCount / 2), maxWaiting: Int = 32) throws {
        self.cost = cost
        self.maxWaiting = maxWaiting
        self.pool = NIOThreadPool(numberOfThreads: threads)
        self.decoyHash = try Bcrypt.hash(SecureRandom.token(), cost: cost)
        pool.start()
    }

    package func shutdown() async throws {
        try await pool.shutdownGracefully()
    }

    package func hash(_ password: String) async throws -> String {
        try await run { [cost] in try Bcrypt.hash(password, cost: cost) }
    }

    /// False when `hash` is nil, after spending the same time as a real check. A password with a
    /// NUL never matches: bcrypt would stop reading at it.
    package func verify(_ password: String, hash: String?) async throws -> Bool {
        let target = hash ?? decoyHash
        let matches = try await run { try Bcrypt.verify(password, created: target) }
        return matches && hash != nil && !password.utf8.contains(0)
    }

    /// Takes a place in the queue before the work, so concurrency cannot slip past the bound.
    private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let admitted = waiting.withLockedValue { count in
            guard count < maxWaiting else { return false }
            count += 1
            return true
        }
        guard admitted else { throw AppError(.tooManyRequests, "server_busy", headers: ["Retry-After": "1"]) }
        defer { waiting.withLockedValue { $0 -= 1 } }
        return try await pool.runIfActive(work)
    }
}

/// Stops the password pool's threads with the application.
package struct PasswordHasherLifecycle: LifecycleHandler {
    package let hasher: BcryptHasher
    package func shutdownAsync(_ application: Application) async {
        try? await hasher.shutdown()
    }

    package init(hasher: BcryptHasher) {
        self.hasher = hasher
    }
}

extension Application {
    private struct PasswordHasherKey: StorageKey { typealias Value = BcryptHasher }

    public var passwordHasher: BcryptHasher {
        get { configured(PasswordHasherKey.self) }
        set { storage[PasswordHasherKey.self] = newValue }
    }
}
