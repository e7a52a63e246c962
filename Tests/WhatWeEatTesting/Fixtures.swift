import Accounts
import Fluent
import Platform
package import XCTVapor

/// Named things the tests share: catalog entries they rely on, and accounts with a role.
package enum Fixtures {
    /// 불고기: discounted, with a badge: 23,900원 (28,900원), 2% points, 1–10 per order.
    package static let bulgogi = "HU6Z5"
    /// 닭갈비: 14,900원, no discount, no badge.
    package static let dakgalbi = "HA5O3"
}

extension Application {
    /// Signs up an account and makes it an administrator (as `whatweeat user create --admin` does).
    @discardableResult
    package func signUpAdmin(_ email: String = "boss@example.com", nickname: String = "boss") async throws -> Credentials {
        let credentials = try await signUp(email, nickname: nickname)
        try await User.query(on: db).filter(\.$email == email).set(\.$role, to: .admin).update()
        return credentials
    }
}

extension HTTPHeaders {
    /// An anonymous device's `X-Device-Token`.
    package static func device(_ token: String) -> HTTPHeaders { [DeviceToken.header: token] }
}
