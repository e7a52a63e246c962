@testable import Banchan
@testable import BurgerMap
@testable import LookForRealBurgerApp
@testable import Mates
@testable import Media
@testable import MenuGame
@testable import Payments
import Platform
@testable import SesacStudyApp
@testable import SocketIO
import WhatWeEatTesting
import XCTest

final class SettingsTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "whatweeat-settings-" + UUID().uuidString
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testDefaultsAreALocalSQLiteRun() throws {
        let settings = try Settings.load(from: ["DATA_DIR": directory])
        XCTAssertEqual(settings.host, "127.0.0.1")
        XCTAssertEqual(settings.port, 8080)
        XCTAssertEqual(settings.database, .sqlite(path: directory + "/whatweeat.sqlite"))
        XCTAssertEqual(settings.publicURL, "http://127.0.0.1:8080")
        XCTAssertEqual(settings.logLevel, .info)
        XCTAssertEqual(settings.accessTokenTTL, 900)
        XCTAssertEqual(settings.refreshTokenTTL, 30 * 24 * 3600)
        XCTAssertFalse(settings.usesSecureCookies)
    }

    func testGeneratedSecretIsKeptPrivatelyAndReused() throws {
        let first = try Settings.load(from: ["DATA_DIR": directory])
        let path = directory + "/jwt-secret"
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertGreaterThanOrEqual(first.jwtSecret.utf8.count, 32)
        let second = try Settings.load(from: ["DATA_DIR": directory])
        XCTAssertEqual(first.jwtSecret, second.jwtSecret, "tokens survive a restart")
        let explicit = try Settings.load(from: ["DATA_DIR": directory, "JWT_SECRET": String(repeating: "k", count: 32)])
        XCTAssertEqual(explicit.jwtSecret, String(repeating: "k", count: 32))
    }

    func testPostgresAndPublicURL() throws {
        let settings = try Settings.load(from: [
            "DATA_DIR": directory, "DATABASE_URL": "postgres://app:pw@db.internal:5433/whatweeat",
            "PUBLIC_URL": "https://eat.example.com/", "LOG_LEVEL": "DEBUG", "PORT": "9000", "HOST": "0.0.0.0",
        ])
        XCTAssertEqual(settings.database, .postgres(url: "postgres://app:pw@db.internal:5433/whatweeat"))
        XCTAssertEqual(settings.database.summary, "PostgreSQL db.internal:5433/whatweeat", "no password in logs")
        XCTAssertEqual(settings.publicURL, "https://eat.example.com")
        XCTAssertTrue(settings.usesSecureCookies)
        XCTAssertEqual(settings.logLevel, .debug)
        XCTAssertEqual(settings.port, 9000)
        XCTAssertEqual(settings.host, "0.0.0.0")
    }

    func testBadValuesAreOneClearLine() {
        let bad: [(String, String)] = [
            ("PORT", "99999"), ("PORT", "eighty"), ("HOST", "local host"), ("LOG_LEVEL", "loud"),
            ("DATABASE_URL", "mysql://root@localhost/db"), ("DATABASE_URL", "postgres://"),
            ("PUBLIC_URL", "ftp://example.com"), ("JWT_SECRET", "short"), ("ACCESS_TOKEN_TTL", "5"),
            ("REFRESH_TOKEN_TTL", "-1"), ("BCRYPT_COST", "40"), ("APP_ENV", "staging"),
        ]
        for (name, value) in bad {
            XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, name: value]), "\(name)=\(value)") { error in
                let line = String(describing: error)
                XCTAssertTrue(line.hasPrefix("invalid \(name)="), line)
                XCTAssertFalse(line.contains("\n"), line)
            }
        }
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": "/proc/whatweeat"])) { error in
            XCTAssertTrue(String(describing: error).hasPrefix("invalid DATA_DIR="))
        }
    }

    func testWhereUploadsAreKept() throws {
        XCTAssertEqual(try Settings.load(from: ["DATA_DIR": directory])[section: MediaSettings.self].storage, .automatic,
                       "the disk with SQLite, the database with PostgreSQL")
        XCTAssertEqual(try Settings.load(from: ["DATA_DIR": directory, "UPLOAD_STORAGE": "database"])[section: MediaSettings.self].storage, .database)
        XCTAssertEqual(try Settings.load(from: ["DATA_DIR": directory, "UPLOAD_STORAGE": "Disk"])[section: MediaSettings.self].storage, .disk)
        let bucket = try Settings.load(from: ["DATA_DIR": directory, "S3_BUCKET": "photos", "S3_REGION": "ap-northeast-2",
                                              "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"])
        XCTAssertEqual(bucket[section: MediaSettings.self].storage, .s3(S3Client.Configuration(
            endpoint: "https://s3.ap-northeast-2.amazonaws.com", bucket: "photos", region: "ap-northeast-2",
            accessKeyID: "AKID", secretAccessKey: "secret")), "a bucket named is where files go")
        let minio = try Settings.load(from: ["DATA_DIR": directory, "UPLOAD_STORAGE": "s3", "S3_BUCKET": "photos",
                                             "S3_ENDPOINT": "http://127.0.0.1:9000", "S3_ACCESS_KEY_ID": "minio", "S3_SECRET_ACCESS_KEY": "minio123"])
        guard case .s3(let configuration) = minio[section: MediaSettings.self].storage else { return XCTFail("not s3") }
        XCTAssertEqual(configuration.endpoint, "http://127.0.0.1:9000")
        XCTAssertEqual(configuration.region, "us-east-1")

        let bad: [([String: String], String)] = [
            (["UPLOAD_STORAGE": "ftp"], "UPLOAD_STORAGE"),
            (["UPLOAD_STORAGE": "s3"], "S3_BUCKET"),
            (["S3_BUCKET": "photos"], "S3_ACCESS_KEY_ID"),
            (["S3_BUCKET": "photos", "S3_ENDPOINT": "minio:9000", "S3_ACCESS_KEY_ID": "a", "S3_SECRET_ACCESS_KEY": "b"], "S3_ENDPOINT"),
        ]
        for (environment, variable) in bad {
            XCTAssertThrowsError(try Settings.load(from: environment.merging(["DATA_DIR": directory]) { $1 }), "\(environment)") { error in
                XCTAssertTrue(String(describing: error).hasPrefix("invalid \(variable)="), String(describing: error))
                XCTAssertFalse(String(describing: error).contains("\n"))
            }
        }
    }

    func testDatabasePasswordIsNotEchoedInErrors() {
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "DATABASE_URL": "mysql://root:hunter2@x/db"])) { error in
            XCTAssertFalse(String(describing: error).contains("hunter2"))
        }
    }

    /// The 2026-12-05 probe's finding 8: a secret with `/`, `#`, `?` or `%` made `SMS_URL` unparseable
    /// and the start-up error printed it whole.
    func testASecretThatBreaksTheURLIsNeverEchoed() {
        for (variable, value, secret) in [
            ("SMS_URL", "solapi://KEY2:Zq9/Wv2@api.solapi.com?from=0212345678", "Zq9/Wv2"),
            ("SMS_URL", "solapi://KEY2:Zq9#Wv2@api.solapi.com?from=0212345678", "Zq9#Wv2"),
            ("SMS_URL", "twilio://KEY2:Zq9?Wv2@api.solapi.com", "Zq9?Wv2"),
            ("SMTP_URL", "http://mailer:pa%zz/ss@mail.example.com", "pa%zz/ss"),
            ("DATABASE_URL", "mysql://root:hun/ter2@x/db", "hun/ter2"),
        ] {
            XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, variable: value]), value) { error in
                let line = String(describing: error)
                XCTAssertFalse(line.contains(secret), line)
                XCTAssertFalse(line.contains(String(secret.prefix(3))), line)
                XCTAssertTrue(line.contains(variable), line)
            }
        }
        XCTAssertEqual(EnvironmentVariables.redactPassword("postgres://u:hunter2@db.example:5432/app"), "postgres://u:***@db.example:5432/app",
                       "a URL that parses as meant keeps what helps the operator")
    }

    func testShopPaymentsAndDeliveryFee() throws {
        let development = try Settings.load(from: ["DATA_DIR": directory])
        XCTAssertEqual(development.shop, ShopSettings(gateway: .test, deliveryFee: 2_500, freeDeliveryFrom: 40_000))
        // Production never approves test payments: no gateway unless PortOne is configured.
        let production = try Settings.load(from: ["DATA_DIR": directory, "APP_ENV": "production"])
        XCTAssertEqual(production.shop.gateway, .none)
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "APP_ENV": "production", "PAYMENT_GATEWAY": "test"])) {
            XCTAssertTrue("\($0)".hasPrefix("invalid PAYMENT_GATEWAY=test"), "\($0)")
        }
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "PAYMENT_GATEWAY": "portone"])) {
            XCTAssertTrue("\($0)".contains("PORTONE_API_KEY"), "\($0)")
        }
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "PAYMENT_GATEWAY": "cash"]))
        let portOne = try Settings.load(from: [
            "DATA_DIR": directory, "APP_ENV": "production", "PAYMENT_GATEWAY": "PortOne", "PORTONE_API_KEY": "k",
            "PORTONE_API_SECRET": "s", "DELIVERY_FEE": "3000", "FREE_DELIVERY_FROM": "50000",
        ])
        XCTAssertEqual(portOne.shop, ShopSettings(gateway: .portOne(url: "https://api.iamport.kr", apiKey: "k", apiSecret: "s"), deliveryFee: 3_000, freeDeliveryFrom: 50_000))
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "DELIVERY_FEE": "-1"]))
        XCTAssertEqual(development.shop.paymentWindow, 1800)
        XCTAssertEqual(try Settings.load(from: ["DATA_DIR": directory, "PAYMENT_WINDOW": "600"]).shop.paymentWindow, 600)
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "PAYMENT_WINDOW": "5"]))
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "PAYMENT_GATEWAY": "portone", "PORTONE_API_KEY": "k",
                                                       "PORTONE_API_SECRET": "s", "PORTONE_API_URL": "ftp://x"]))
    }

    func testFirebaseProjectsAndCertificatesURL() throws {
        let off = try Settings.load(from: ["DATA_DIR": directory, "FIREBASE_PROJECT_IDS": " "])
        XCTAssertEqual(off.firebase, FirebaseSettings(), "unset or empty: no projects, the feature off")
        XCTAssertEqual(off.firebase.certificatesURL, "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
        let two = try Settings.load(from: [
            "DATA_DIR": directory, "FIREBASE_PROJECT_IDS": "sesac-study-1, sesac-study-2,,sesac-study-1,",
            "FIREBASE_CERTS_URL": "http://127.0.0.1:9099/certs",
        ])
        XCTAssertEqual(two.firebase.projectIDs, ["sesac-study-1", "sesac-study-2"])
        XCTAssertEqual(two.firebase.certificatesURL, "http://127.0.0.1:9099/certs")
        let bad = [
            ("FIREBASE_PROJECT_IDS", "Sesac-Study"), ("FIREBASE_PROJECT_IDS", "ok-app,has space"), ("FIREBASE_PROJECT_IDS", "1app"),
            ("FIREBASE_PROJECT_IDS", "app/../x"), ("FIREBASE_CERTS_URL", "ftp://example.com/certs"), ("FIREBASE_CERTS_URL", "certs.json"),
        ]
        for (name, value) in bad {
            XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, name: value]), "\(name)=\(value)") { error in
                let line = String(describing: error)
                XCTAssertTrue(line.hasPrefix("invalid \(name)="), line)
                XCTAssertFalse(line.contains("\n"), line)
            }
        }
        // Whoever serves the certificates decides which tokens are good: no plain http to another host in production.
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "APP_ENV": "production", "FIREBASE_CERTS_URL": "http://certs.example.com/x"]))
        let local = try Settings.load(from: ["DATA_DIR": directory, "APP_ENV": "production", "FIREBASE_CERTS_URL": "http://localhost:9099/certs"])
        XCTAssertEqual(local.firebase.certificatesURL, "http://localhost:9099/certs")
    }
}
