import AsyncHTTPClient
import Foundation
@testable import Messaging
import NIOPosix
import Platform
import WhatWeEatTesting
import XCTest

/// The FCM HTTP v1 client against a local stand-in that speaks Google's token endpoint (checking
/// the JWT's RS256 signature with the key's public half) and FCM's send endpoint: a message
/// arrives as sent, the access token is kept until it nearly expires, and every documented answer
/// is read as FCM means it.
final class FCMSenderTests: XCTestCase {
    private var fake: FakeFCM!
    private var client: HTTPClient!

    override func setUp() async throws {
        fake = try await FakeFCM.start(projects: ["sesac-one", "sesac-two"])
        client = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton))
    }

    override func tearDown() async throws {
        try await client.shutdown()
        await fake.stop()
    }

    private func sender(_ projects: [String], now: @escaping Now = { Date() }) throws -> FCMSender {
        let accounts = try projects.map { try FCMServiceAccount(json: Data(fake.serviceAccountJSON(project: $0).utf8)) }
        return FCMSender(accounts: accounts, apiURL: fake.url, client: client, now: now)
    }

    func testAMessageArrivesAsSentAndTheAccessTokenIsKept() async throws {
        let sender = try sender(["sesac-one", "sesac-two"])
        let message = FCMMessage(token: "phone-token-1", title: "준호", body: "내일 카공 어때요?", data: ["uid": "uid-of-joon"], collapseKey: "chat-1")
        let first = await sender.send(message, project: "sesac-one")
        XCTAssertEqual(first, .accepted)
        let second = await sender.send(FCMMessage(token: "phone-token-2", title: "미나", body: "좋아요"), project: "sesac-one")
        XCTAssertEqual(second, .accepted)
        XCTAssertEqual(fake.tokenExchanges, 1, "one access token for the project, kept between sends")
        let other = await sender.send(FCMMessage(token: "phone-token-3", title: "t", body: "b"), project: "sesac-two")
        XCTAssertEqual(other, .accepted)
        XCTAssertEqual(fake.tokenExchanges, 2, "each project is authorised by its own service account")

        let sent = fake.messages
        XCTAssertEqual(sent.map(\.project), ["sesac-one", "sesac-one", "sesac-two"])
        XCTAssertEqual(sent[0].token, "phone-token-1")
        XCTAssertEqual(sent[0].notification, ["title": "준호", "body": "내일 카공 어때요?"])
        XCTAssertEqual(sent[0].data, ["uid": "uid-of-joon"])
        let android = try XCTUnwrap(sent[0].message["android"] as? [String: any Sendable])
        XCTAssertEqual(android["collapse_key"] as? String, "chat-1")
        XCTAssertEqual(android["priority"] as? String, "high", "a background app is woken")

        let unknown = await sender.send(message, project: "someone-elses-project")
        XCTAssertEqual(unknown, .noAccount)
        XCTAssertEqual(fake.refusedJWTs, 0)
    }

    func testAnAccessTokenIsExchangedAgainBeforeItExpires() async throws {
        await fake.stop()
        let clock = TestClock(Date())
        fake = try await FakeFCM.start(projects: ["sesac-one"], now: { clock.now })
        let sender = try sender(["sesac-one"], now: { clock.now })
        _ = await sender.send(FCMMessage(token: "a", title: "t", body: "b"), project: "sesac-one")
        clock.advance(by: 3_500)
        _ = await sender.send(FCMMessage(token: "a", title: "t", body: "b"), project: "sesac-one")
        XCTAssertEqual(fake.tokenExchanges, 1, "kept while more than a minute is left")
        clock.advance(by: 60)
        _ = await sender.send(FCMMessage(token: "a", title: "t", body: "b"), project: "sesac-one")
        XCTAssertEqual(fake.tokenExchanges, 2, "a new one in its last minute")
    }

    func testEveryDocumentedAnswerIsReadAsFCMMeansIt() async throws {
        let sender = try sender(["sesac-one"])
        fake.answer("gone-token", with: [.unregistered])
        fake.answer("not-a-token", with: [.invalidToken])
        fake.answer("busy-token", with: [.unavailable(retryAfter: "30")])
        fake.answer("revoked", with: [.unauthorized])
        let gone = await sender.send(FCMMessage(token: "gone-token", title: "t", body: "b"), project: "sesac-one")
        XCTAssertEqual(gone, .gone(reason: "UNREGISTERED"))
        let invalid = await sender.send(FCMMessage(token: "not-a-token", title: "t", body: "b"), project: "sesac-one")
        XCTAssertEqual(invalid, .gone(reason: "INVALID_ARGUMENT"))
        let busy = await sender.send(FCMMessage(token: "busy-token", title: "t", body: "b"), project: "sesac-one")
        XCTAssertEqual(busy, .later(retryAfter: 30), "Retry-After is honoured")
        let retried = await sender.send(FCMMessage(token: "revoked", title: "t", body: "b"), project: "sesac-one")
        XCTAssertEqual(retried, .accepted, "an access token refused early is exchanged again, once")
        XCTAssertEqual(fake.tokenExchanges, 2)
        XCTAssertEqual(fake.messages.map(\.token), ["revoked"])

        // Read from the documented bodies alone.
        let body = Data(#"{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"errorCode":"QUOTA_EXCEEDED"}]}}"#.utf8)
        XCTAssertEqual(FCMSender.delivery(status: 429, body: body, retryAfter: nil, now: Date()), .later(retryAfter: nil))
        let mismatch = Data(#"{"error":{"code":403,"status":"PERMISSION_DENIED","details":[{"errorCode":"SENDER_ID_MISMATCH"}]}}"#.utf8)
        XCTAssertEqual(FCMSender.delivery(status: 403, body: mismatch, retryAfter: nil, now: Date()), .refused(status: 403, reason: "SENDER_ID_MISMATCH"))
        let ours = Data(#"{"error":{"code":400,"message":"Invalid value at 'message.data[0].value'","status":"INVALID_ARGUMENT"}}"#.utf8)
        XCTAssertEqual(FCMSender.delivery(status: 400, body: ours, retryAfter: nil, now: Date()), .refused(status: 400, reason: "INVALID_ARGUMENT"),
                       "a message of ours that FCM refuses is not the token's fault")
    }

    func testAKeyTheTokenEndpointDoesNotKnowSendsNothing() async throws {
        // The account names sesac-one but is signed with sesac-two's key: Google refuses its JWT.
        let forged = try FCMServiceAccount(json: Data(fake.serviceAccountJSON(project: "sesac-one", signedBy: "sesac-two").utf8))
        let sender = FCMSender(accounts: [forged], apiURL: fake.url, client: client, now: { Date() })
        let delivery = await sender.send(FCMMessage(token: "a", title: "t", body: "b"), project: "sesac-one")
        XCTAssertEqual(delivery, .later(retryAfter: nil), "no access token: tried again later, nothing sent")
        XCTAssertEqual(fake.refusedJWTs, 1)
        XCTAssertTrue(fake.messages.isEmpty)
    }

    func testTheSettingTakesKeysWrittenOutOrAsFiles() throws {
        let one = fake.serviceAccountJSON(project: "sesac-one"), two = fake.serviceAccountJSON(project: "sesac-two")
        let inline = try FCMServiceAccount.accounts(fromSetting: one, readFile: { _ in Data() })
        XCTAssertEqual(inline.map(\.projectID), ["sesac-one"])
        XCTAssertEqual(inline.first?.tokenURI, fake.url + "/token")
        let array = try FCMServiceAccount.accounts(fromSetting: "[\(one), \(two)]", readFile: { _ in Data() })
        XCTAssertEqual(array.map(\.projectID), ["sesac-one", "sesac-two"])
        let files = try FCMServiceAccount.accounts(fromSetting: "/keys/one.json, /keys/two.json",
                                                   readFile: { Data(($0 == "/keys/one.json" ? one : two).utf8) })
        XCTAssertEqual(files.map(\.projectID), ["sesac-one", "sesac-two"])

        XCTAssertThrowsError(try FCMServiceAccount.accounts(fromSetting: "[\(one), \(one)]", readFile: { _ in Data() })) {
            XCTAssertEqual($0 as? FCMServiceAccount.Problem, .twoKeysForOneProject)
        }
        XCTAssertThrowsError(try FCMServiceAccount(json: Data(#"{"project_id":"p","client_email":"e","private_key":"nope"}"#.utf8))) {
            XCTAssertEqual($0 as? FCMServiceAccount.Problem, .badPrivateKey)
        }
        XCTAssertThrowsError(try FCMServiceAccount(json: Data("{".utf8))) { XCTAssertEqual($0 as? FCMServiceAccount.Problem, .notJSON) }
    }
}
