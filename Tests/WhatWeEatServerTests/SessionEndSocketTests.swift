import Fluent
import Accounts
import Mates
import NIOConcurrencyHelpers
import Platform
import SesacStudyApp
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// The 2026-11-27 probe, finding 4: after `POST /api/v1/auth/logout` (the token already 401) the
/// mates chat socket still sent a line that was stored and acknowledged, still heard the partner,
/// and the inbox socket stayed open. A live socket now belongs to its session: sign-out, a reused
/// refresh token, withdrawal and a mates suspension close it (4401) within a second, and it checks
/// its session before each line.
final class SessionEndSocketTests: XCTestCase {
    typealias Listener = SocketListener

    func testSigningOutClosesTheChatAndInboxSocketsAndTheChatStoresNothingMore() async throws {
        try await withListeningApp { app, port in
            let mina = try await app.mate("소켓미나")
            let joon = try await app.mate("준호")
            let match = try await app.matchPair(mina, joon)
            let chat = try await Listener.open(app, port: port, path: "\(Application.mates)/chat/\(match)/live", token: mina.token)
            let inbox = try await Listener.open(app, port: port, path: "/api/v1/notifications/live", token: mina.token)
            let other = try await Listener.open(app, port: port, path: "\(Application.mates)/chat/\(match)/live", token: joon.token)
            try await waitUntil { chat.texts.contains { $0.contains("\"hello\"") } && !inbox.texts.isEmpty }

            let loggedOut = try await app.send(.POST, "/api/v1/auth/logout", token: mina.token)
            XCTAssertEqual(loggedOut.status, .noContent)
            try await waitUntil(timeout: .seconds(1)) { chat.socket.isClosed && inbox.socket.isClosed }
            XCTAssertEqual(chat.socket.closeCode, OpenSockets.sessionEndedCode)
            XCTAssertEqual(inbox.socket.closeCode, OpenSockets.sessionEndedCode)
            XCTAssertFalse(other.socket.isClosed, "the partner's socket is another session's")
            let stored = try await app.rowCount(MatesStore.Table.messages)
            XCTAssertEqual(stored, 0)
            try await other.socket.close()
        }
    }

    /// Even if the close were missed (another instance's announcement lost), the socket checks its
    /// session before each line: nothing is stored in the name of a session that ended.
    func testALineOnASocketWhoseSessionEndedIsNeitherStoredNorAcknowledged() async throws {
        try await withListeningApp { app, port in
            let mina = try await app.mate("확인미나")
            let joon = try await app.mate("준호")
            let match = try await app.matchPair(mina, joon)
            let chat = try await Listener.open(app, port: port, path: "\(Application.mates)/chat/\(match)/live", token: mina.token)
            try await waitUntil { chat.texts.contains { $0.contains("\"hello\"") } }
            // The session ends in the database only: no announcement reaches the socket.
            try await AuthSession.query(on: app.db).filter(\.$user.$id == mina.id).set(\.$revokedAt, to: Date()).update()
            app.sessionCache.apply(.user(mina.id))
            try await chat.socket.send(#"{"type":"send","text":"after the end","clientId":"late"}"#)
            try await waitUntil { chat.socket.isClosed }
            XCTAssertEqual(chat.socket.closeCode, OpenSockets.sessionEndedCode)
            XCTAssertFalse(chat.texts.contains { $0.contains("\"ack\"") }, "\(chat.texts)")
            XCTAssertTrue(chat.texts.contains { $0.contains("session_ended") }, "\(chat.texts)")
            let stored = try await app.rowCount(MatesStore.Table.messages)
            XCTAssertEqual(stored, 0)
        }
    }

    /// A refresh token presented twice revokes its family: the family's sockets close too.
    func testAReusedRefreshTokenClosesTheFamilysSockets() async throws {
        try await withListeningApp { app, port in
            let credentials = try await app.signUp("reuse@example.com", nickname: "재사용")
            let inbox = try await Listener.open(app, port: port, path: "/api/v1/notifications/live", token: credentials.accessToken)
            try await waitUntil { !inbox.texts.isEmpty }
            let rotated = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": credentials.refreshToken])
            XCTAssertEqual(rotated.status, .ok)
            // Long after the retry window: a stolen copy is presented.
            try await RefreshToken.query(on: app.db).filter(\.$usedAt != nil).set(\.$usedAt, to: Date().addingTimeInterval(-600)).update()
            let reused = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": credentials.refreshToken])
            XCTAssertEqual(reused.errorCode, "refresh_token_reused")
            try await waitUntil(timeout: .seconds(1)) { inbox.socket.isClosed }
            XCTAssertEqual(inbox.socket.closeCode, OpenSockets.sessionEndedCode)
        }
    }

    /// A password change ends every other session of the account (tokens and sockets); the session
    /// that changed it stays. The old password stops working; bad input changes nothing.
    func testChangingThePasswordEndsEveryOtherSessionAndItsSockets() async throws {
        try await withListeningApp { app, port in
            let here = try await app.signUp("changer@example.com", nickname: "바꾸는사람")
            let elsewhere = try await app.logIn("changer@example.com")
            let otherInbox = try await Listener.open(app, port: port, path: "/api/v1/notifications/live", token: elsewhere.accessToken)
            let ownInbox = try await Listener.open(app, port: port, path: "/api/v1/notifications/live", token: here.accessToken)
            try await waitUntil { !otherInbox.texts.isEmpty && !ownInbox.texts.isEmpty }

            let wrong = try await app.send(.PUT, "/api/v1/me/password", json: ["currentPassword": "not-mine-1", "newPassword": "password2"], token: here.accessToken)
            XCTAssertEqual(wrong.status, .forbidden)
            XCTAssertEqual(wrong.errorCode, "wrong_password")
            let short = try await app.send(.PUT, "/api/v1/me/password", json: ["currentPassword": "password1", "newPassword": "short"], token: here.accessToken)
            XCTAssertEqual(short.status, .unprocessableEntity)
            XCTAssertEqual(short.errorCode, "password_too_short")
            let missing = try await app.send(.PUT, "/api/v1/me/password", json: ["currentPassword": "password1"], token: here.accessToken)
            XCTAssertEqual(missing.errorCode, "missing_field")
            XCTAssertFalse(otherInbox.socket.isClosed, "a refused change ends nothing")

            let changed = try await app.send(.PUT, "/api/v1/me/password", json: ["currentPassword": "password1", "newPassword": "password2"], token: here.accessToken)
            XCTAssertEqual(changed.status, .noContent, changed.text)
            try await waitUntil(timeout: .seconds(1)) { otherInbox.socket.isClosed }
            XCTAssertEqual(otherInbox.socket.closeCode, OpenSockets.sessionEndedCode)
            let otherMe = try await app.send(.GET, "/api/v1/me", token: elsewhere.accessToken)
            XCTAssertEqual(otherMe.status, .unauthorized)
            let otherRefresh = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": elsewhere.refreshToken])
            XCTAssertEqual(otherRefresh.status, .unauthorized)
            let ownMe = try await app.send(.GET, "/api/v1/me", token: here.accessToken)
            XCTAssertEqual(ownMe.status, .ok, "the session that changed it stays")
            try await Task.sleep(for: .milliseconds(200))
            XCTAssertFalse(ownInbox.socket.isClosed, "and so do its sockets")
            let oldPassword = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "changer@example.com", "password": "password1"])
            XCTAssertEqual(oldPassword.status, .unauthorized)
            _ = try await app.logIn("changer@example.com", password: "password2")
            try await ownInbox.socket.close()
        }
    }

    /// Withdrawal closes every socket of the account; a mates suspension closes its mates sockets
    /// and keeps the inbox.
    func testWithdrawalAndSuspensionCloseTheirSockets() async throws {
        try await withListeningApp { app, port in
            let credentials = try await app.signUp("leaving@example.com", nickname: "떠남")
            let inbox = try await Listener.open(app, port: port, path: "/api/v1/notifications/live", token: credentials.accessToken)
            try await waitUntil { !inbox.texts.isEmpty }
            let withdrawn = try await app.send(.DELETE, "/api/v1/me", json: ["password": "password1"], token: credentials.accessToken)
            XCTAssertEqual(withdrawn.status, .noContent, withdrawn.text)
            try await waitUntil(timeout: .seconds(1)) { inbox.socket.isClosed }

            let suspended = try await app.mate("정지될사람")
            let partner = try await app.mate("상대")
            let match = try await app.matchPair(suspended, partner)
            let chat = try await Listener.open(app, port: port, path: "\(Application.mates)/chat/\(match)/live", token: suspended.token)
            let ownInbox = try await Listener.open(app, port: port, path: "/api/v1/notifications/live", token: suspended.token)
            try await waitUntil { chat.texts.contains { $0.contains("\"hello\"") } && !ownInbox.texts.isEmpty }
            await app.events.announceSessionEnd(.feature(MatesService.socketFeature, account: suspended.id))
            try await waitUntil(timeout: .seconds(1)) { chat.socket.isClosed }
            try await Task.sleep(for: .milliseconds(200))
            XCTAssertFalse(ownInbox.socket.isClosed, "a mates suspension keeps the inbox")
            try await ownInbox.socket.close()
        }
    }
}
