import Foundation
import NIOHTTP1
import Platform
import Vapor
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

/// The rules behind "know people by what they hold" (issue 37): budgets by network, origins
/// compared as origins, the hosts a production server answers,
/// and the announcements that end a session's sockets.
final class ClientIdentityRulesTests: XCTestCase {
    /// A /64 is one client; its /48 has ten times the budget, so many /64s of one site stop too.
    func testANetworkBudgetCountsASlash64AsOneClientAndBoundsItsSlash48() async throws {
        let budget = NetworkBudget(name: "test", limit: 3, window: 60)
        var outcomes: [Bool] = []
        for host in 1...5 {
            let taken = try await budget.tryReserve(ClientNetwork(address: "2001:db8:1:2::\(host)"))
            if case .success = taken { outcomes.append(true) } else { outcomes.append(false) }
        }
        XCTAssertEqual(outcomes, [true, true, true, false, false], "five addresses of one /64 are one client")
        // Ten /64s of the /48 (3 each) fill the /48's 30; the eleventh /64 is refused at once.
        var wideOutcomes: [Bool] = []
        for subnet in 3...12 {
            for _ in 0..<3 {
                if case .success = try await budget.tryReserve(ClientNetwork(address: "2001:db8:1:\(subnet)::1")) { wideOutcomes.append(true) } else { wideOutcomes.append(false) }
            }
        }
        XCTAssertEqual(wideOutcomes.filter { $0 }.count, 27, "the /48 holds 30: 3 taken by the first /64, 27 by the others")
        let elsewhere = try await budget.tryReserve(ClientNetwork(address: "2001:db8:2:1::1"))
        guard case .success(let slot) = elsewhere else { return XCTFail("another /48 has its own budget") }
        // A slot given back is given back on both levels.
        await budget.release(slot)
        for _ in 0..<3 {
            guard case .success = try await budget.tryReserve(ClientNetwork(address: "2001:db8:2:1::9")) else { return XCTFail("the released slot is free again") }
        }
        // IPv4: every address its own, no wider budget (a carrier NAT's neighbours are strangers).
        for host in 1...3 {
            for _ in 0..<3 {
                guard case .success = try await budget.tryReserve(ClientNetwork(address: "198.51.100.\(host)")) else { return XCTFail("198.51.100.\(host)") }
            }
        }
    }

    /// Starscream writes `Origin: ws://host` beside `Host: host:80`: origins are compared with the
    /// default port filled in on both sides, and `ws`/`wss` read as `http`/`https`.
    func testOriginsAreComparedAsOrigins() {
        XCTAssertEqual(WebOrigin("ws://whatweeat.example"), WebOrigin(scheme: "http", hostHeader: "whatweeat.example:80"))
        XCTAssertEqual(WebOrigin("wss://whatweeat.example"), WebOrigin(scheme: "https", hostHeader: "whatweeat.example:443"))
        XCTAssertEqual(WebOrigin("https://WhatWeEat.example."), WebOrigin(scheme: "https", hostHeader: "whatweeat.example"))
        XCTAssertEqual(WebOrigin("http://api.sesac.co.kr:1210"), WebOrigin(scheme: "http", hostHeader: "api.sesac.co.kr:1210"))
        XCTAssertNotEqual(WebOrigin("http://whatweeat.example"), WebOrigin(scheme: "https", hostHeader: "whatweeat.example"))
        XCTAssertNotEqual(WebOrigin("http://whatweeat.example:8080"), WebOrigin(scheme: "http", hostHeader: "whatweeat.example"))
        XCTAssertEqual(WebOrigin("http://[::1]:8080")?.host, "::1")
        for bad in ["null", "file:///etc", "whatweeat.example", "http://", "http://a@b.example", "http://x.example:99999", "javascript://x"] {
            XCTAssertNil(WebOrigin(bad), bad)
        }
    }

    /// In production only `PUBLIC_URL`'s host and `SERVED_HOSTS` are answered (a DNS-rebinding page
    /// sends its own name); address literals cannot be rebound and pass.
    func testServedHostsAreThePublicURLsAndTheListedOnes() throws {
        let served = try XCTUnwrap(ServedHosts(publicURL: "https://whatweeat.example", entries: ["api.sesac.co.kr:1210", "http://lslp.example:8082"]))
        for host in ["whatweeat.example", "WHATWEEAT.example:443", "whatweeat.example.", "api.sesac.co.kr:1210", "api.sesac.co.kr", "lslp.example:8082",
                     "127.0.0.1:8081", "[::1]:8081", "203.0.113.9"] {
            XCTAssertTrue(served.serves(hostHeader: host), host)
        }
        for host in ["rebind.example:1210", "whatweeat.example.evil.example", "evil.example", "", "a b"] {
            XCTAssertFalse(served.serves(hostHeader: host), host)
        }
        XCTAssertTrue(served.origins.contains(try XCTUnwrap(WebOrigin("ws://api.sesac.co.kr:1210"))))
        XCTAssertTrue(served.origins.contains(try XCTUnwrap(WebOrigin("wss://whatweeat.example"))))
        XCTAssertFalse(served.origins.contains(try XCTUnwrap(WebOrigin("http://whatweeat.example"))), "PUBLIC_URL's scheme only")
        XCTAssertNil(ServedHosts(publicURL: "https://whatweeat.example", entries: ["bad host"]))
    }

    func testSessionEndsTravelAsMessagesAndNameWhatTheyEnd() throws {
        let session = UUID(), account = UUID(), other = UUID()
        for end in [SessionEnd.session(session), .account(account), .feature("mates", account: account)] {
            XCTAssertEqual(SessionEnd(message: end.message), end)
        }
        XCTAssertNil(SessionEnd(message: "feature:\(account)"))
        XCTAssertNil(SessionEnd(message: "session:not-a-uuid"))
        let owner = SignedInAccount(id: account, session: session)
        XCTAssertTrue(SessionEnd.session(session).ends(owner: owner, feature: "notifications"))
        XCTAssertFalse(SessionEnd.session(other).ends(owner: owner, feature: "notifications"))
        XCTAssertTrue(SessionEnd.account(account).ends(owner: owner, feature: "menu_game"))
        XCTAssertTrue(SessionEnd.feature("mates", account: account).ends(owner: owner, feature: "mates"))
        XCTAssertFalse(SessionEnd.feature("mates", account: account).ends(owner: owner, feature: "notifications"), "a suspension keeps the inbox")
    }

    /// Behind a proxy the server was not told of, the address it settles on is the proxy's, not
    /// one the forwarded header names.
    func testAnUntrustedProxyIsRecognisedByItsForwardedHeader() {
        XCTAssertTrue(UntrustedForwarding.suspected(headers: ["X-Forwarded-For": "203.0.113.5"], clientAddress: "127.0.0.1"))
        XCTAssertFalse(UntrustedForwarding.suspected(headers: ["X-Forwarded-For": "203.0.113.5"], clientAddress: "203.0.113.5"), "trusted: the hop is the client")
        XCTAssertFalse(UntrustedForwarding.suspected(headers: [:], clientAddress: "127.0.0.1"), "no proxy at all")
    }
}
