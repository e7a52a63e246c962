@testable import BurgerMap
import Foundation
import Vapor

extension Application {
    /// Runs `body` with the map's clock (`BurgerMapEnvironment.now`) `seconds` ahead of the wall
    /// clock, then puts it back; services and stores made inside `body` read the moved clock.
    func withMapClock<T>(ahead seconds: TimeInterval, _ body: () async throws -> T) async throws -> T {
        let before = burgerMapEnvironment.now
        burgerMapEnvironment.now = { Date().addingTimeInterval(seconds) }
        defer { burgerMapEnvironment.now = before }
        return try await body()
    }
}
