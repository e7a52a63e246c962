import Accounts
import BurgerMap
import Fluent
import MenuGame
import NIOConcurrencyHelpers
import Platform
import SesacStudyApp
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Security probe items 8, 9 and 15: throttles that checked, then did the slow work, then
/// recorded, let every parallel request through. Each limit here must hold under concurrency.
final class ThrottleTests: XCTestCase {
    /// 60 parallel wrong passwords for one account: at most 10 are checked (401), the rest 429.
    func testParallelWrongPasswordsReachBcryptAtMostTenTimes() async throws {
        try await withTestApp(adjust: { $0.limits.passwordChecksPerMinute = 1_000 }) { app in
            _ = try await app.signUp()
            let statuses = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
                for attempt in 0..<60 {
                    group.addTask {
                        try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "guess-\(attempt)"]).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let checked = statuses.filter { $0 == .unauthorized }.count
            XCTAssertLessThanOrEqual(checked, 10, "\(statuses)")
            XCTAssertEqual(checked + statuses.filter { $0 == .tooManyRequests }.count, 60, "\(statuses)")
            let right = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "password1"])
            if checked == 10 {
                XCTAssertEqual(right.status, .tooManyRequests, "ten failures lock the email")
            }
        }
    }

    /// One network gets a budget of logins and one of sign-ups (each costs a bcrypt), then 429. A
    /// login does not spend the sign-up budget: a class that signs up and then logs in fits both.
    func testOneAddressHasABudgetOfLoginsAndOneOfSignUps() async throws {
        try await withTestApp(adjust: { $0.limits.passwordChecksPerMinute = 5 }) { app in
            try await app.removeBurgerCatalog()  // its seed reviewers would count as accounts
            _ = try await app.signUp()  // the first of five sign-ups
            var statuses: [HTTPStatus] = []
            for attempt in 0..<6 {
                statuses.append(try await app.send(.POST, "/api/v1/auth/login", json: ["email": "other\(attempt)@example.com", "password": "password1"]).status)
            }
            XCTAssertEqual(statuses, [.unauthorized, .unauthorized, .unauthorized, .unauthorized, .unauthorized, .tooManyRequests])
            var signUps: [HTTPStatus] = []
            for index in 0..<5 {
                signUps.append(try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "new\(index)@example.com", "password": "password1", "nickname": "new\(index)"]).status)
            }
            XCTAssertEqual(signUps, [.created, .created, .created, .created, .tooManyRequests], "the logins spent none of the sign-ups")
            let refused = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "late@example.com", "password": "password1", "nickname": "late"])
            XCTAssertEqual(refused.status, .tooManyRequests)
            XCTAssertNotNil(refused.headers.first(name: "Retry-After"))
            let users = try await User.query(on: app.db).count()
            XCTAssertEqual(users, 5, "the refused sign-ups wrote nothing")
        }
    }

    func testEmailAvailabilityIsThrottledPerAddress() async throws {
        try await withTestApp(adjust: { $0.limits.passwordChecksPerMinute = 3 }) { app in
            var statuses: [HTTPStatus] = []
            for index in 0..<5 {
                statuses.append(try await app.send(.GET, "/api/v1/auth/email-available?email=u\(index)@example.com").status)
            }
            XCTAssertEqual(statuses, [.ok, .ok, .ok, .tooManyRequests, .tooManyRequests])
        }
    }

    /// The probe's 30 parallel notes from one address let 8 through a limit of 5.
    func testParallelFeedbackKeepsItsLimitExactly() async throws {
        try await withTestApp { app in
            let statuses = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
                for index in 0..<30 {
                    group.addTask { try await app.send(.POST, "/api/v1/menu-game/feedback", json: ["message": "note \(index)"]).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            XCTAssertEqual(statuses.filter { $0 == .created }.count, 5, "\(statuses)")
            XCTAssertEqual(statuses.filter { $0 == .tooManyRequests }.count, 25)
            let stored = try await MenuGameFeedback.query(on: app.db).count()
            XCTAssertEqual(stored, 5)
        }
    }

    /// An empty note is refused by its rule and does not use up the budget.
    func testRefusedFeedbackDoesNotUseTheBudget() async throws {
        try await withTestApp { app in
            for _ in 0..<6 {
                let empty = try await app.send(.POST, "/api/v1/menu-game/feedback", json: ["message": "  "])
                XCTAssertEqual(empty.status, .unprocessableEntity)
            }
            let real = try await app.send(.POST, "/api/v1/menu-game/feedback", json: ["message": "좋아요"])
            XCTAssertEqual(real.status, .created)
        }
    }

    /// 300 parallel guesses of unknown PINs: exactly 20 are looked up (404), the rest 429,
    /// while 50 parallel players of a real group from the same address all get through.
    func testParallelPINGuessesGetExactlyTheMissBudget() async throws {
        try await withTestApp { app in
            let statuses = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
                for index in 0..<300 {
                    group.addTask { try await app.send(.GET, "/api/v1/menu-game/groups/\(100_000 + index)").status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // No device shown: the network's budget alone, wide enough for a classroom (200 a minute).
            XCTAssertEqual(statuses.filter { $0 == .notFound }.count, 200, "\(Dictionary(grouping: statuses, by: { $0.code }).mapValues(\.count))")
            XCTAssertEqual(statuses.filter { $0 == .tooManyRequests }.count, 100)
        }
    }

    /// One device guessing in parallel gets exactly its own budget of misses (20 a minute).
    func testParallelPINGuessesOfOneDeviceGetExactlyItsMissBudget() async throws {
        try await withTestApp { app in
            let statuses = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        try await app.send(.GET, "/api/v1/menu-game/groups/\(100_000 + index)", headers: ["X-Device-Token": "one-guessing-device-0001"]).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            XCTAssertEqual(statuses.filter { $0 == .notFound }.count, 20, "\(Dictionary(grouping: statuses, by: { $0.code }).mapValues(\.count))")
            XCTAssertEqual(statuses.filter { $0 == .tooManyRequests }.count, 80)
        }
    }

    /// A flood of password checks waits for the password pool, never for the event loops, and
    /// past `maxWaiting` is refused at once (429) instead of queueing without bound.
    func testThePasswordPoolIsBounded() async throws {
        let hasher = try BcryptHasher(cost: 8, threads: 1, maxWaiting: 2)
        let hash = try await hasher.hash("password1")
        let outcomes = NIOLockedValueBox<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    do {
                        _ = try await hasher.verify("password1", hash: hash)
                        outcomes.withLockedValue { $0.append("checked") }
                    } catch let error as AppError {
                        outcomes.withLockedValue { $0.append(error.code) }
                    } catch {
                        outcomes.withLockedValue { $0.append("\(error)") }
                    }
                }
            }
        }
        let all = outcomes.withLockedValue { $0 }
        XCTAssertEqual(all.count, 12)
        XCTAssertGreaterThanOrEqual(all.filter { $0 == "checked" }.count, 2, "\(all)")
        XCTAssertGreaterThan(all.filter { $0 == "server_busy" }.count, 0, "\(all)")
        XCTAssertEqual(all.filter { $0 != "checked" && $0 != "server_busy" }, [])
        try await hasher.shutdown()
    }
}
