import AsyncHTTPClient
@testable import Messaging
import NIOHTTP1
import Vapor
import WhatWeEatTesting
import XCTest

/// The Solapi client against a stand-in that checks every request as Solapi does (`FakeSolapi`):
/// the signed `Authorization`, the message, the answers; `SMS_URL` read strictly.
final class SolapiClientTests: XCTestCase {
    private func withClient(_ configuration: (FakeSolapi) throws -> SMSConfiguration = { try SMSConfiguration(url: $0.smsURL) },
                            _ body: (SolapiClient, FakeSolapi) async throws -> Void) async throws {
        let fake = try await FakeSolapi.start()
        let http = SolapiClient.makeClient(on: fake.app.eventLoopGroup)
        do {
            try await body(SolapiClient(configuration: try configuration(fake), client: http), fake)
        } catch {
            try? await http.shutdown()
            await fake.stop()
            throw error
        }
        try await http.shutdown()
        await fake.stop()
    }

    /// What a send to `number` threw (nil: it was accepted).
    private func refusal(_ client: SolapiClient, to number: String) async -> SMSError? {
        do {
            _ = try await client.send(to: number, text: "code", now: Date())
            return nil
        } catch {
            return error
        }
    }

    func testTheSettingNamesKeySecretSenderAndService() throws {
        let real = try SMSConfiguration(url: "solapi://NCSKEY:se%2Fcret@api.solapi.com?from=02-930-2266")
        XCTAssertEqual(real, SMSConfiguration(apiKey: "NCSKEY", apiSecret: "se/cret", sender: "029302266", baseURL: "https://api.solapi.com"))
        let local = try SMSConfiguration(url: "solapi+http://k:s@127.0.0.1:8181?from=0212345678")
        XCTAssertEqual(local.baseURL, "http://127.0.0.1:8181")
        for (text, error) in [("twilio://k:s@api.twilio.com?from=0212345678", SMSConfiguration.ConfigurationError.notSolapi),
                              ("solapi://api.solapi.com?from=0212345678", .missingCredentials),
                              ("solapi://k:s@api.solapi.com", .missingSender),
                              ("solapi://k:s@api.solapi.com?from=12ab", .badSender)] {
            XCTAssertThrowsError(try SMSConfiguration(url: text), text) { XCTAssertEqual($0 as? SMSConfiguration.ConfigurationError, error) }
        }
    }

    /// The documented scheme: hex HMAC-SHA256 of the date and salt joined, under the secret.
    func testTheSignatureIsTheHMACOfDateAndSalt() throws {
        let date = try XCTUnwrap(ISO8601DateFormatter().date(from: "2019-07-01T00:41:48Z"))
        let header = SolapiClient.authorization(apiKey: "NCSAYU7YDBXYORXC", apiSecret: "secret", date: date, salt: "jqsba2jxjnrjor")
        // HMAC-SHA256("secret", "2019-07-01T00:41:48Zjqsba2jxjnrjor"), computed with Python's hmac.
        XCTAssertEqual(header, "HMAC-SHA256 apiKey=NCSAYU7YDBXYORXC, date=2019-07-01T00:41:48Z, salt=jqsba2jxjnrjor, "
                       + "signature=\(Self.pythonSignature)")
        XCTAssertNotEqual(SolapiClient.salt(), SolapiClient.salt(), "a fresh salt every request")
        XCTAssertTrue((12...64).contains(SolapiClient.salt().count))
    }

    private static let pythonSignature = "4297539ca79c85dd83b60cbddae60942710223ddcafc4bf02275193a649057ce"

    func testAMessageIsAcceptedThenFollowedToThePhone() async throws {
        try await withClient { client, fake in
            let sent = try await client.send(to: "01012345678", text: "[WhatWeEat] 인증번호 123456", now: Date())
            XCTAssertEqual(sent.statusCode, "2000")
            XCTAssertEqual(fake.messages.map { [$0.messageID, $0.to, $0.from, $0.text] },
                           [[sent.messageID, "01012345678", fake.sender, "[WhatWeEat] 인증번호 123456"]], "the sender number as registered")
            var status = try await client.status(of: sent.messageID, now: Date())
            XCTAssertEqual(status, .pending)
            fake.carrier(sent.messageID, status: "3000")
            status = try await client.status(of: sent.messageID, now: Date())
            XCTAssertEqual(status, .pending, "with the carrier")
            fake.carrier(sent.messageID, status: "4000")
            status = try await client.status(of: sent.messageID, now: Date())
            XCTAssertEqual(status, .delivered)
            fake.carrier(sent.messageID, status: "3059", reason: "변작된 발신번호")
            status = try await client.status(of: sent.messageID, now: Date())
            XCTAssertEqual(status, .failed(code: "3059", reason: "변작된 발신번호"))
            let unknown = try await client.status(of: "M4VNOSUCHMESSAGE", now: Date())
            XCTAssertEqual(unknown, .pending, "not listed (yet)")
            XCTAssertEqual(fake.authorizationRefusals, [], "every request signed as Solapi checks it, each with its own salt")
        }
    }

    func testRefusalsAreReadAndNotRetriedButOutagesAre() async throws {
        try await withClient { client, fake in
            fake.refuseNext(.paymentRequired, "NotEnoughBalance")
            let noBalance = await refusal(client, to: "01012345678")
            XCTAssertEqual(noBalance, .refused(status: 402, code: "NotEnoughBalance", message: "scripted"))
            fake.refuseNext(.internalServerError, "InternalError")
            let outage = await refusal(client, to: "01012345678")
            guard case .unavailable? = outage else { return XCTFail("\(String(describing: outage))") }
            let foreign = await refusal(client, to: "+15551234567")
            guard case .refused(400, "ValidationError", _)? = foreign else { return XCTFail("\(String(describing: foreign))") }
            XCTAssertTrue(fake.messages.isEmpty)
        }
        // A sender number not registered with Solapi, and a wrong secret.
        try await withClient({ SMSConfiguration(apiKey: $0.apiKey, apiSecret: $0.apiSecret, sender: "0299999999", baseURL: $0.url) }) { client, _ in
            let error = await refusal(client, to: "01012345678")
            guard case .refused(400, "InvalidSenderNumber", _)? = error else { return XCTFail("\(String(describing: error))") }
        }
        try await withClient({ SMSConfiguration(apiKey: $0.apiKey, apiSecret: "wrong", sender: $0.sender, baseURL: $0.url) }) { client, fake in
            let error = await refusal(client, to: "01012345678")
            guard case .refused(403, "SignatureDoesNotMatch", _)? = error else { return XCTFail("\(String(describing: error))") }
            XCTAssertEqual(fake.authorizationRefusals, ["SignatureDoesNotMatch"])
        }
    }
}
