import Accounts
package import Fluent
import NIOFoundationEssentialsCompat
import Platform
import SQLKit
package import XCTVapor

/// An account the tests act as.
package struct Member {
    package let id: UUID
    package let token: String
    package let nickname: String
    /// Its sign-in address (password `password1`), when the test made the account.
    package var email: String?

    package init(id: UUID, token: String, nickname: String, email: String? = nil) {
        self.id = id
        self.token = token
        self.nickname = nickname
        self.email = email
    }
}

extension Application {
    /// Signs up `nickname` (with an email of its own) and reads its id from `/api/v1/me`.
    package func member(_ nickname: String, admin: Bool = false) async throws -> Member {
        let email = "member-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let credentials = admin ? try await signUpAdmin(email, nickname: nickname) : try await signUp(email, nickname: nickname)
        let me = try await send(.GET, "/api/v1/me", token: credentials.accessToken)
        let id = try XCTUnwrap(UUID(uuidString: try XCTUnwrap(try me.object()["id"] as? String)))
        return Member(id: id, token: credentials.accessToken, nickname: nickname, email: email)
    }

    /// Moves an account's sign-up into the past.
    package func age(_ member: Member, by seconds: TimeInterval) async throws {
        try await db.sql.raw("UPDATE \(ident: User.schema) SET created_at = \(bind: Date().addingTimeInterval(-seconds)) WHERE id = \(bind: member.id)").run()
    }

    /// Sends raw bytes (a multipart body, a binary file) through the app.
    package func send(_ method: HTTPMethod, _ path: String, body: Data, contentType: String, token: String?) async throws -> TestingHTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": contentType]
        if let token { headers.bearerAuthorization = .init(token: token) }
        return try await testable().performTest(request: TestingHTTPRequest(
            method: method, url: URI(path: path), headers: headers, body: ByteBuffer(data: body)))
    }
}
