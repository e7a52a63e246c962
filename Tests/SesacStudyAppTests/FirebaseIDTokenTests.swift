import Accounts
import AsyncHTTPClient
import Crypto
import Logging
import Mates
import MatesTesting
import NIOConcurrencyHelpers
import Platform
@testable import SesacStudyApp
import SocketIO
import WhatWeEatTesting
import XCTVapor

/// Firebase ID tokens checked the way Google documents it, against `FakeFirebase`'s certificates
/// on a real local port: algorithm, key, signature, times, audience, issuer, subject; the
/// certificates cached, fetched once, refetched on rotation, kept through an outage for a day.
final class FirebaseIDTokenTests: XCTestCase {
    func withFirebase(maxAge: Int = 3600, projects: Set<String>? = nil, lines: RecordedLines = RecordedLines(),
                      _ body: (FakeFirebase, FirebaseIDTokenVerifier, TestClock) async throws -> Void) async throws {
        let firebase = try await FakeFirebase.start(maxAge: maxAge)
        let clock = TestClock()  // tokens are minted at its time
        let verifier = FirebaseIDTokenVerifier(
            projectIDs: projects ?? [firebase.projectID], certificatesURL: firebase.certificatesURL, client: HTTPClient.shared,
            logger: Logger(label: "firebase-test", factory: lines.handler), now: { clock.now })
        do {
            try await body(firebase, verifier, clock)
        } catch {
            await firebase.stop()
            throw error
        }
        await firebase.stop()
    }

    func assertRefused(_ verifier: FirebaseIDTokenVerifier, _ token: String, _ expected: FirebaseTokenError, _ note: String = "",
                       file: StaticString = #filePath, line: UInt = #line) async {
        do {
            let identity = try await verifier.verify(token)
            XCTFail("accepted \(identity), expected \(expected) \(note)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, note, file: file, line: line)
        }
    }

    func testAGoodTokenGivesItsIdentity() async throws {
        try await withFirebase { firebase, verifier, clock in
            let identity = try await verifier.verify(try firebase.token(uid: "firebase-uid-1", issuedAt: clock.now))
            XCTAssertEqual(identity, FirebaseIdentity(uid: "firebase-uid-1", projectID: "sesac-test-project",
                                                      phoneNumber: "+821012345678", email: nil, signInProvider: "phone"))
            let byEmail = try await verifier.verify(try firebase.token(uid: "u2", phone: nil, email: "mina@example.com", issuedAt: clock.now))
            XCTAssertEqual(byEmail.email, "mina@example.com")
            XCTAssertNil(byEmail.phoneNumber)
            XCTAssertEqual(byEmail.signInProvider, "password")
            XCTAssertEqual(firebase.fetchCount, 1)
        }
    }

    func testExpiredTokensAreRefusedAfterFiveMinutesOfSkew() async throws {
        try await withFirebase { firebase, verifier, clock in
            let hourAgo = clock.now - 3600
            await assertRefused(verifier, try firebase.token(uid: "u", issuedAt: hourAgo - 400, expiresIn: 3600), .expired, "expired 400 s ago")
            await assertRefused(verifier, try firebase.token(uid: "u", issuedAt: clock.now - 7200), .expired, "expired an hour ago")
            let withinSkew = try await verifier.verify(try firebase.token(uid: "u", issuedAt: hourAgo - 120, expiresIn: 3600))
            XCTAssertEqual(withinSkew.uid, "u", "expired 2 minutes ago is within the skew")
        }
    }

    /// A token verified once is answered from memory, but only until it expires.
    func testAVerifiedTokenIsRememberedUntilItExpires() async throws {
        try await withFirebase { firebase, verifier, clock in
            let token = try firebase.token(uid: "remembered", issuedAt: clock.now, expiresIn: 600)
            let first = try await verifier.verify(token)
            // The certificates go away: a remembered token needs no key.
            firebase.rotateKeys(keepingPrevious: false)
            clock.advance(by: 500)
            let again = try await verifier.verify(token)
            XCTAssertEqual(again, first)
            // Past its expiry (and the skew) it is refused, remembered or not.
            clock.advance(by: 600)
            await assertRefused(verifier, token, .expired, "a remembered token expires too")
        }
    }

    func testTokensFromTheFutureAreRefused() async throws {
        try await withFirebase { firebase, verifier, clock in
            await assertRefused(verifier, try firebase.token(uid: "u", issuedAt: clock.now + 600), .notYetValid, "issued in 10 minutes")
            _ = try await verifier.verify(try firebase.token(uid: "u", issuedAt: clock.now + 120))  // 2 minutes is clock skew
            var claims = firebase.claims(uid: "u", issuedAt: clock.now)
            claims["auth_time"] = Int(clock.now.timeIntervalSince1970) + 3600
            await assertRefused(verifier, try firebase.signed(claims: claims), .notYetValid, "signed in an hour from now")
            claims = firebase.claims(uid: "u", issuedAt: clock.now)
            claims["auth_time"] = nil
            await assertRefused(verifier, try firebase.signed(claims: claims), .malformed, "auth_time is required")
            claims = firebase.claims(uid: "u", issuedAt: clock.now)
            claims["exp"] = "tomorrow"
            await assertRefused(verifier, try firebase.signed(claims: claims), .malformed, "times are numbers")
        }
    }

    func testAudienceMustBeOneOfOurProjects() async throws {
        try await withFirebase { firebase, verifier, clock in
            await assertRefused(verifier, try firebase.token(uid: "u", project: "someone-elses-app", issuedAt: clock.now), .wrongAudience)
            var claims = firebase.claims(uid: "u", issuedAt: clock.now)
            claims["aud"] = nil
            await assertRefused(verifier, try firebase.signed(claims: claims), .wrongAudience, "no aud")
        }
        try await withFirebase(projects: ["sesac-test-project", "sesac-second-app"]) { firebase, verifier, clock in
            let second = try await verifier.verify(try firebase.token(uid: "u", project: "sesac-second-app", issuedAt: clock.now))
            XCTAssertEqual(second.projectID, "sesac-second-app")
            let first = try await verifier.verify(try firebase.token(uid: "u", issuedAt: clock.now))
            XCTAssertEqual(first.projectID, "sesac-test-project")
            await assertRefused(verifier, try firebase.token(uid: "u", project: "sesac-third-app", issuedAt: clock.now), .wrongAudience)
        }
    }

    func testIssuerMustBeSecureTokenForTheAudience() async throws {
        try await withFirebase(projects: ["sesac-test-project", "sesac-second-app"]) { firebase, verifier, clock in
            for issuer in ["https://securetoken.google.com/sesac-second-app", "https://accounts.google.com",
                           "https://securetoken.google.com/sesac-test-project/", "http://securetoken.google.com/sesac-test-project"] {
                var claims = firebase.claims(uid: "u", issuedAt: clock.now)
                claims["iss"] = issuer
                await assertRefused(verifier, try firebase.signed(claims: claims), .wrongIssuer, issuer)
            }
        }
    }

    func testSubjectIsANonEmptyUIDOfAtMost128Characters() async throws {
        try await withFirebase { firebase, verifier, clock in
            await assertRefused(verifier, try firebase.token(uid: "", issuedAt: clock.now), .missingSubject, "empty")
            await assertRefused(verifier, try firebase.token(uid: String(repeating: "u", count: 129), issuedAt: clock.now), .missingSubject, "129")
            var claims = firebase.claims(uid: "u", issuedAt: clock.now)
            claims["sub"] = nil
            await assertRefused(verifier, try firebase.signed(claims: claims), .missingSubject, "absent")
            let longest = try await verifier.verify(try firebase.token(uid: String(repeating: "u", count: 128), issuedAt: clock.now))
            XCTAssertEqual(longest.uid.count, 128)
        }
    }

    func testSignaturesMustBeByTheServedKey() async throws {
        try await withFirebase { firebase, verifier, clock in
            await assertRefused(verifier, try firebase.tokenSignedByAnotherKey(uid: "u"), .badSignature, "same kid, another key")
            // A good token with its payload swapped for another's.
            let mine = try firebase.token(uid: "mine", issuedAt: clock.now).split(separator: ".")
            let theirs = try firebase.token(uid: "admin", issuedAt: clock.now).split(separator: ".")
            await assertRefused(verifier, "\(mine[0]).\(theirs[1]).\(mine[2])", .badSignature, "payload swapped")
            await assertRefused(verifier, try firebase.token(uid: "u", issuedAt: clock.now, kid: "no-such-kid"), .unknownKey)
            var header = FakeFirebase.encode(["alg": "RS256", "typ": "JWT"])
            await assertRefused(verifier, "\(header).\(mine[1]).\(mine[2])", .unknownKey, "no kid")
            header = FakeFirebase.encode(["alg": "RS256", "kid": firebase.currentKey.kid])
            await assertRefused(verifier, "\(header).\(mine[1]).\(mine[2])", .badSignature, "the header is signed too")
            let uid = try await verifier.verify(mine.joined(separator: ".")).uid
            XCTAssertEqual(uid, "mine")
        }
    }

    func testOnlyRS256IsAccepted() async throws {
        try await withFirebase { firebase, verifier, clock in
            await assertRefused(verifier, firebase.unsignedToken(uid: "u"), .unsupportedAlgorithm, "alg none")
            await assertRefused(verifier, firebase.tokenHMACedWithThePublicKey(uid: "u"), .unsupportedAlgorithm, "HS256 keyed by the public key")
            await assertRefused(verifier, firebase.tokenHMACedWithThePublicKey(uid: "u", usingCertificatePEM: true), .unsupportedAlgorithm,
                                "HS256 keyed by the certificate")
            let body = try firebase.token(uid: "u", issuedAt: clock.now).split(separator: ".")
            for alg in ["rs256", "RS512", "PS256", "ES256", "None", ""] {
                let header = FakeFirebase.encode(["alg": alg, "kid": firebase.currentKey.kid])
                await assertRefused(verifier, "\(header).\(body[1]).\(body[2])", .unsupportedAlgorithm, alg)
            }
            XCTAssertEqual(firebase.fetchCount, 0, "a token with another algorithm never reaches the certificates")
        }
    }

    func testMalformedTokensAreRefusedWithoutAFetch() async throws {
        try await withFirebase { firebase, verifier, clock in
            let good = try firebase.token(uid: "u", issuedAt: clock.now)
            let parts = good.split(separator: ".").map(String.init)
            let malformed = [
                "", "abc", "a.b", "\(parts[0]).\(parts[1])", "\(good).\(parts[2])", "\(parts[0])..\(parts[2])", "\(parts[0]).\(parts[1]).",
                "!!!.\(parts[1]).\(parts[2])", "\(parts[0]).\(parts[1]).\(parts[2])=", "\(parts[0]).\(parts[1]).\(parts[2].dropLast())+",
                "\(parts[0]) .\(parts[1]).\(parts[2])", "e30.\(parts[1]).\(parts[2])",  // `{}`: no alg
                "\(Data("not json".utf8).base64URLEncodedString()).\(parts[1]).\(parts[2])",
                "\(parts[0]).\(Data("[1,2]".utf8).base64URLEncodedString()).\(parts[2])",
                "\(parts[0]).\(parts[1] + String(repeating: "A", count: 20_000)).\(parts[2])",
                String(repeating: "a.", count: 100_000),
            ]
            for token in malformed {
                await assertRefused(verifier, token, .malformed, String(token.prefix(80)))
            }
            XCTAssertEqual(firebase.fetchCount, 0)
            _ = try await verifier.verify(good)
        }
    }

    func testCertificatesAreFetchedOnceAndCachedForMaxAge() async throws {
        try await withFirebase(maxAge: 600) { firebase, verifier, clock in
            let token = try firebase.token(uid: "u", issuedAt: clock.now)
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<32 { group.addTask { try await verifier.verify(token).uid } }
                for try await uid in group { XCTAssertEqual(uid, "u") }
            }
            XCTAssertEqual(firebase.fetchCount, 1, "concurrent callers share one fetch")
            for _ in 0..<20 { _ = try await verifier.verify(token) }
            clock.advance(by: 590)
            _ = try await verifier.verify(try firebase.token(uid: "u", issuedAt: clock.now))
            XCTAssertEqual(firebase.fetchCount, 1, "still within max-age")
            clock.advance(by: 20)
            _ = try await verifier.verify(try firebase.token(uid: "u", issuedAt: clock.now))
            try await waitUntil { firebase.fetchCount == 2 }  // past max-age: answered from the old ones, fetched behind
            for _ in 0..<20 { _ = try await verifier.verify(token) }
            try await Task.sleep(for: .milliseconds(100))
            XCTAssertEqual(firebase.fetchCount, 2, "fresh again for another max-age")
        }
    }

    func testRotationRefetchesOnceAMinuteForAnUnknownKid() async throws {
        try await withFirebase { firebase, verifier, clock in
            let before = try firebase.token(uid: "u", issuedAt: clock.now)
            _ = try await verifier.verify(before)
            XCTAssertEqual(firebase.fetchCount, 1)
            firebase.rotateKeys()
            let after = try firebase.token(uid: "u", issuedAt: clock.now)
            let uid = try await verifier.verify(after).uid
            XCTAssertEqual(uid, "u", "the new kid fetched the certificates again")
            XCTAssertEqual(firebase.fetchCount, 2)
            let oldUID = try await verifier.verify(before).uid
            XCTAssertEqual(oldUID, "u", "the old certificate is still served")
            for _ in 0..<5 {
                await assertRefused(verifier, try firebase.token(uid: "u", issuedAt: clock.now, kid: "forged-kid"), .unknownKey)
            }
            firebase.rotateKeys()
            await assertRefused(verifier, try firebase.token(uid: "u", issuedAt: clock.now), .unknownKey, "within the minute")
            XCTAssertEqual(firebase.fetchCount, 2, "an unknown kid refetches at most once a minute")
            clock.advance(by: 61)
            let rotatedUID = try await verifier.verify(try firebase.token(uid: "u", issuedAt: clock.now)).uid
            XCTAssertEqual(rotatedUID, "u")
            XCTAssertEqual(firebase.fetchCount, 3)
        }
    }

    func testAFailedFetchServesTheOldCertificatesForADay() async throws {
        try await withFirebase(maxAge: 600) { firebase, verifier, clock in
            _ = try await verifier.verify(try firebase.token(uid: "u", issuedAt: clock.now))
            firebase.setFailing(true)
            clock.advance(by: 700)
            // A kid the expired set lacks waits for the fetch, which fails.
            await assertRefused(verifier, try firebase.token(uid: "u", issuedAt: clock.now, kid: "rotated-kid"), .unknownKey)
            XCTAssertEqual(firebase.fetchCount, 2)
            let stale = try await verifier.verify(try firebase.token(uid: "u", issuedAt: clock.now)).uid
            XCTAssertEqual(stale, "u", "the expired certificates still serve")
            try await Task.sleep(for: .milliseconds(200))
            XCTAssertEqual(firebase.fetchCount, 2, "no new attempt within ten seconds of a failure")
            clock.advance(by: 11)
            await assertRefused(verifier, try firebase.token(uid: "u", issuedAt: clock.now, kid: "rotated-kid"), .unknownKey)
            XCTAssertEqual(firebase.fetchCount, 3)
            clock.advance(by: 24 * 3600 - 700)
            let lastDay = try await verifier.verify(try firebase.token(uid: "u", issuedAt: clock.now)).uid
            XCTAssertEqual(lastDay, "u", "still within a day past max-age")
            clock.advance(by: 700)
            await assertRefused(verifier, try firebase.token(uid: "u", issuedAt: clock.now), .certificatesUnavailable, "a day past max-age")
            firebase.setFailing(false)
            clock.advance(by: 11)
            let recoveredUID = try await verifier.verify(try firebase.token(uid: "u", issuedAt: clock.now)).uid
            XCTAssertEqual(recoveredUID, "u", "back once Google is")
        }
    }

    func testNoCertificatesAtAllIsUnavailableAndTokensAreNeverLogged() async throws {
        let lines = RecordedLines()
        try await withFirebase(lines: lines) { firebase, verifier, clock in
            firebase.setFailing(true)
            let token = try firebase.token(uid: "u", issuedAt: clock.now)
            await assertRefused(verifier, token, .certificatesUnavailable)
            await assertRefused(verifier, token, .certificatesUnavailable, "while waiting to retry")
            XCTAssertEqual(firebase.fetchCount, 1)
            firebase.setFailing(false)
            clock.advance(by: 11)
            let uid = try await verifier.verify(token).uid
            XCTAssertEqual(uid, "u")
            let signedByTheOldKey = try firebase.token(uid: "u3", issuedAt: clock.now)
            firebase.rotateKeys(keepingPrevious: false)
            let rotated = try await verifier.verify(try firebase.token(uid: "u2", issuedAt: clock.now)).uid
            XCTAssertEqual(rotated, "u2")
            XCTAssertEqual(firebase.fetchCount, 3, "the new kid fetched again, early")
            await assertRefused(verifier, signedByTheOldKey, .unknownKey, "signed by a key no longer served (and never verified before)")

            let logged = lines.lines.withLockedValue { $0 }
            XCTAssertTrue(logged.contains { $0.contains("could not be fetched") }, "the failed fetch was logged: \(logged)")
            for line in logged {
                for part in token.split(separator: ".") { XCTAssertFalse(line.contains(part), line) }
            }
        }
    }

    func testTheFeatureIsOffWithoutProjectIDs() async throws {
        let app = try await Application.make(.testing)
        do {
            XCTAssertNil(app.firebaseTokens, "nothing registers a verifier by default")
            XCTAssertNil(FirebaseIDTokenVerifier.make(app, settings: FirebaseSettings()))
            let verifier = try XCTUnwrap(FirebaseIDTokenVerifier.make(app, settings: .init(projectIDs: ["a-app", "b-app"])))
            XCTAssertEqual(verifier.projectIDs, ["a-app", "b-app"])
            XCTAssertEqual(verifier.certificatesURL, "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
            app.firebaseTokens = verifier
            XCTAssertNotNil(app.firebaseTokens)
            app.firebaseTokens = nil
            XCTAssertNil(app.firebaseTokens)
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    func testCacheLifetimeFollowsMaxAgeWithinBounds() {
        XCTAssertEqual(FirebaseIDTokenVerifier.cacheLifetime(cacheControl: "public, max-age=19845, must-revalidate, no-transform", age: nil), 19_845)
        XCTAssertEqual(FirebaseIDTokenVerifier.cacheLifetime(cacheControl: "public, MAX-AGE=600", age: "100"), 500)
        XCTAssertEqual(FirebaseIDTokenVerifier.cacheLifetime(cacheControl: "", age: nil), 3600, "an hour without max-age")
        XCTAssertEqual(FirebaseIDTokenVerifier.cacheLifetime(cacheControl: "no-cache", age: nil), 3600)
        XCTAssertEqual(FirebaseIDTokenVerifier.cacheLifetime(cacheControl: "max-age=9999999", age: nil), 86_400, "never more than a day")
        XCTAssertEqual(FirebaseIDTokenVerifier.cacheLifetime(cacheControl: "max-age=0", age: nil), 60, "at least a minute")
    }
}
