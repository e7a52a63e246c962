import Crypto
import Foundation
@testable import Mates
import MatesTesting
import Payments
import Platform
import Site
import WhatWeEatTesting
import XCTVapor

/// 새싹's App Store purchases with a real StoreKit 2 verifier (a chain made at test time,
/// `FakeAppStore`): the settings read the root, and the shop honours a purchase once.
final class MatesAppStoreTests: XCTestCase {
    func testSettingsReadTheRootAndRefuseWhatIsNotOne() throws {
        let store = try FakeAppStore()
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pem = try store.writeRoot(in: directory)
        let settings = try Settings.load(from: ["DATA_DIR": directory, "APPSTORE_ROOT_CERT": pem, "APPSTORE_BUNDLE_ID": FakeAppStore.bundleID,
                                                "APPSTORE_ENVIRONMENTS": "Production, Sandbox"], features: MatesSite.features)
        XCTAssertEqual(settings.mates.appStore, .apple(rootCertificatePath: pem, bundleID: FakeAppStore.bundleID, environments: ["Production", "Sandbox"]))
        let defaults = try Settings.load(from: ["DATA_DIR": directory, "APPSTORE_ROOT_CERT": pem, "APPSTORE_BUNDLE_ID": "b"], features: MatesSite.features)
        XCTAssertEqual(defaults.mates.appStore, .apple(rootCertificatePath: pem, bundleID: "b", environments: ["Production"]))
        XCTAssertEqual(try StoreKitTransactionVerifier.loadRoot(path: pem), store.root.certificate)

        let notACertificate = directory + "/root.pem"
        try Data("-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: notACertificate))
        let bad: [[String: String]] = [
            ["APPSTORE_ROOT_CERT": notACertificate, "APPSTORE_BUNDLE_ID": "b"],
            ["APPSTORE_ROOT_CERT": directory + "/missing.cer", "APPSTORE_BUNDLE_ID": "b"],
            ["APPSTORE_ROOT_CERT": pem, "APPSTORE_BUNDLE_ID": "b", "APPSTORE_ENVIRONMENTS": "Production,Staging"],
            ["APPSTORE_ROOT_CERT": pem],
        ]
        for environment in bad {
            XCTAssertThrowsError(try Settings.load(from: environment.merging(["DATA_DIR": directory]) { $1 }, features: MatesSite.features), "\(environment)") { error in
                let line = String(describing: error)
                XCTAssertTrue(line.hasPrefix("invalid APPSTORE_"), line)
                XCTAssertFalse(line.contains("\n"), line)
            }
        }
    }

    /// The whole way: a server configured with the root file honours a purchase once.
    func testTheShopHonoursAppStorePurchasesOnce() async throws {
        let store = try FakeAppStore()
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rootPath = try store.writeRoot(in: directory, pem: false)
        try await withTestApp(adjust: {
            $0.mates.appStore = .apple(rootCertificatePath: rootPath, bundleID: FakeAppStore.bundleID, environments: ["Production"])
        }) { app in
            XCTAssertEqual(app.appStoreVerifier?.name, "appstore")
            let mina = try await app.mate("미나")
            let joon = try await app.mate("준호")
            let mates = Application.mates
            let jws = try store.sign(FakeAppStore.payload(transactionID: "2000000900000001", productID: "com.whatweeat.mates.avatar1"))
            let bought = try await app.send(.POST, "\(mates)/shop/purchases", json: ["signedTransaction": jws], token: mina.token)
            XCTAssertEqual(bought.status, .created, bought.text)
            XCTAssertEqual(try bought.json(MatesJSON.Purchase.self).collection.avatars, [0, 1])
            for member in [mina, joon] {
                let replay = try await app.send(.POST, "\(mates)/shop/purchases", json: ["signedTransaction": jws], token: member.token)
                XCTAssertEqual(replay.status, .conflict, member.nickname)
                XCTAssertEqual(replay.errorCode, "transaction_used")
            }
            // The test verifier's tokens mean nothing here, nor does a forgery; neither writes a row.
            let test = TestAppStoreVerifier.token(productID: "com.whatweeat.mates.avatar2", transactionID: "7")
            let forged = try store.sign(FakeAppStore.payload(transactionID: "8", productID: "com.whatweeat.mates.avatar2"), signer: P256.Signing.PrivateKey())
            for token in [test, forged] {
                let refused = try await app.send(.POST, "\(mates)/shop/purchases", json: ["signedTransaction": token], token: joon.token)
                XCTAssertEqual(refused.status, .unprocessableEntity)
                XCTAssertEqual(refused.errorCode, "purchase_invalid")
            }
            let awaited1 = try await app.rowCount(MatesStore.Table.purchases)
            XCTAssertEqual(awaited1, 1)
            let awaited2 = try await app.send(.GET, "\(mates)/shop/collection", token: joon.token).json(MatesJSON.Collection.self).avatars
            XCTAssertEqual(awaited2, [0])
        }
    }
}
