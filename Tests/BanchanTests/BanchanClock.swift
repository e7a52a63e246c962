@testable import Banchan
import Foundation
import Vapor

extension Application {
    /// Runs `body` with the shop's clock (`BanchanEnvironment.now`) `seconds` ahead of the wall
    /// clock, then puts it back: the time an order waits, moved instead of waited for.
    func withShopClock<T>(ahead seconds: TimeInterval, _ body: () async throws -> T) async throws -> T {
        let before = banchanEnvironment.now
        banchanEnvironment.now = { Date().addingTimeInterval(seconds) }
        defer { banchanEnvironment.now = before }
        return try await body()
    }
}
