import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import Media
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Probe 2026-11-27, finding 6: the photo quota was per account and accounts are free, so eight
/// fresh accounts from one address stored 8 × the quota. Young accounts (under three days) now
/// have a small quota and share a daily byte budget per network; the disk floor's refusal is counted.
final class UploadBudgetTests: XCTestCase {
    /// A JPEG of about 0.95 MB (what is stored is what counts).
    private func bigPhoto(_ seed: Int) -> (data: Data, contentType: String) {
        var bytes = [UInt8](TestImages.phoneJPEG(width: 840, height: 840, seed: UInt8(seed)))
        bytes.insert(contentsOf: [UInt8](repeating: 0x55, count: 900_000), at: bytes.count - 4)
        let (body, contentType) = UploadPart.multipart([UploadPart(filename: "p.jpg", contentType: "image/jpeg", data: Data(bytes))])
        return (body, contentType)
    }

    private func signUp(_ client: PortClient, from address: String, _ n: Int) async throws -> String {
        let response = try await client.send(.POST, "/api/v1/auth/signup", json: [
            "email": "budget-\(n)-\(UUID().uuidString.prefix(6).lowercased())@example.com", "password": "password1", "nickname": "업로더\(n)"],
            from: address)
        XCTAssertEqual(response.status, .created, response.text)
        return try XCTUnwrap(try response.object()["accessToken"] as? String)
    }

    private func upload(_ client: PortClient, _ token: String, from address: String, seed: Int) async throws -> PortClient.Reply {
        try await client.send(.POST, "/api/v1/burger-map/photos", body: bigPhoto(seed), token: token, from: address)
    }

    func testYoungAccountsShareADailyBudgetPerNetworkAndHaveASmallQuota() async throws {
        try await withListeningApp(adjust: {
            $0.trustedProxies = ["127.0.0.1"]
            $0.limits.uploadQuotaMB = 10
            $0.limits.newAccountUploadQuotaMB = 2
            $0.limits.networkDailyUploadMB = 3
        }) { app, port in
            let client = PortClient(port: port)
            let school = "203.0.113.50"
            // Fresh accounts from one network: 3 MB between them (three photos), however many accounts.
            var stored = 0
            var refusals: [String: Int] = [:]
            for n in 0..<3 {
                let token = try await signUp(client, from: school, n)
                for seed in 0..<2 {
                    let reply = try await upload(client, token, from: school, seed: n * 10 + seed)
                    if reply.status == .created { stored += 1 } else { refusals[reply.errorCode ?? "\(reply.status.code)", default: 0] += 1 }
                    if reply.errorCode == "network_upload_budget_exhausted" {
                        XCTAssertEqual(reply.status, .tooManyRequests)
                        let wait = Int(reply.headers.first(name: "Retry-After") ?? "") ?? 0
                        XCTAssertTrue((1...86_400).contains(wait), "until the next UTC day: \(wait)")
                    }
                }
            }
            XCTAssertEqual(stored, 3, "\(refusals)")
            XCTAssertEqual(refusals, ["network_upload_budget_exhausted": 3])

            // One young account alone stops at its own quota (2 MB: two photos, not three).
            let elsewhere = "198.51.100.70"
            let lone = try await signUp(client, from: elsewhere, 9)
            for seed in 0..<2 {
                let reply = try await upload(client, lone, from: elsewhere, seed: 90 + seed)
                XCTAssertEqual(reply.status, .created, reply.text)
            }
            let third = try await upload(client, lone, from: elsewhere, seed: 92)
            XCTAssertEqual(third.status, .payloadTooLarge)
            XCTAssertEqual(third.errorCode, "storage_quota_exceeded")
            XCTAssertTrue(third.text.contains("2 MB"), third.text)

            // Three days on, the account has the full quota, and its uploads spend no network's day.
            let loneUser = try await User.query(on: app.db).filter(\.$nickname == "업로더9").first()
            let loneID = try XCTUnwrap(loneUser?.requireID())
            try await app.db.sql.raw("UPDATE \(ident: User.schema) SET created_at = \(bind: Date().addingTimeInterval(-StorageQuota.newAccountAge - 60)) WHERE id = \(bind: loneID)").run()
            let grown = try await upload(client, lone, from: school, seed: 93)
            XCTAssertEqual(grown.status, .created, "an older account is not held to the school's spent budget: \(grown.text)")

            // Refusals took nothing: the network's day holds exactly what was stored from it.
            let day = try await StorageQuotaStore(database: app.db).usedOnDay(network: school, day: StorageQuota.day(Date()))
            let schoolPhotos = try await BurgerPhoto.query(on: app.db).filter(\.$fileKey != nil).all()
            XCTAssertEqual(schoolPhotos.count, 6, "three from the school's young accounts, two of the lone one, one grown")
            XCTAssertLessThanOrEqual(day, 3 * 1_048_576)
            XCTAssertGreaterThan(day, 3 * 900_000)
        }
    }

    func testTheDiskFloorsRefusalIsCounted() async throws {
        // The floor guards the disk files are kept on (this machine's, with UPLOAD_STORAGE=disk).
        try await withTestApp(adjust: { $0.limits.minimumFreeDiskMB = 100_000_000; $0[section: MediaSettings.self].storage = .disk }) { app in
            func refusals() -> Int {
                let line = AppMetrics.prometheusText().split(separator: "\n").first { $0.hasPrefix("whatweeat_uploads_refused_disk_full_total ") }
                return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
            }
            let before = refusals()
            let member = try await app.member("디스크")
            let refused = try await app.uploadPhoto([UploadPart(data: TestImages.png(seed: 1))], token: member.token)
            XCTAssertEqual(refused.errorCode, "storage_full")
            XCTAssertEqual(refusals(), before + 1)
        }
    }
}
