import Banchan
import BurgerMap
import Logging
import LookForRealBurgerApp
import Mates
import Media
import Messaging
import MenuGame
import Payments
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatServer
import WhatWeEatServerTesting
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

    /// What a production site must decide, decided: the address, mail over TLS, how the shop is paid.
    private var productionBase: [String: String] {
        ["DATA_DIR": directory, "APP_ENV": "production", "PUBLIC_URL": "https://eat.example.com",
         "SMTP_URL": "smtps://mailer:pw@smtp.example.com?from=noreply@example.com", "PAYMENT_GATEWAY": "none"]
    }

    /// Issue 58, item 1: a production server refuses to start on settings a site with people must
    /// decide, each with one line naming the variable and what to do, never a secret.
    func testProductionRefusesUndecidedAndCleartextSettings() throws {
        XCTAssertNoThrow(try Settings.load(from: productionBase))
        func refusal(_ changes: [String: String?], file: StaticString = #filePath, line: UInt = #line) -> String? {
            var environment = productionBase
            for (name, value) in changes { environment[name] = value }
            do {
                _ = try Settings.load(from: environment)
                return nil
            } catch {
                return String(describing: error)
            }
        }
        let cases: [(changes: [String: String?], variable: String)] = [
            (["PUBLIC_URL": nil], "PUBLIC_URL"),
            (["PUBLIC_URL": "http://eat.example.com"], "PUBLIC_URL"),
            (["DATABASE_URL": "postgres://app:hunter2@db.example.com/app"], "JWT_SECRET"),
            (["SMTP_URL": nil], "SMTP_URL"),
            (["SMTP_URL": "smtp://mailer:pw@smtp.example.com?from=a@example.com"], "SMTP_URL"),
            (["MAIL_DELIVERY": "log"], "MAIL_DELIVERY"),
            (["PAYMENT_GATEWAY": nil], "PAYMENT_GATEWAY"),
            (["PAYMENT_GATEWAY": "portone", "PORTONE_API_KEY": "k", "PORTONE_API_SECRET": "s", "PORTONE_API_URL": "http://pay.example.com"],
             "PORTONE_API_URL"),
            (["PUSH_SERVICES": "http://push.example.com"], "PUSH_SERVICES"),
            (["UPLOAD_STORAGE": "s3", "S3_BUCKET": "b", "S3_ENDPOINT": "http://minio.example.com:9000", "S3_ACCESS_KEY_ID": "k",
              "S3_SECRET_ACCESS_KEY": "secretkey1"], "S3_ENDPOINT"),
            (["SMS_URL": "solapi+http://k:smssecret@sms.example.com?from=0212345678"], "SMS_URL"),
            (["DATABSE_URL": "postgres://app:hunter2@db.example.com/app"], "DATABSE_URL"),
        ]
        for (changes, variable) in cases {
            let line = refusal(changes)
            XCTAssertNotNil(line, "\(changes) starts")
            guard let line else { continue }
            XCTAssertTrue(line.hasPrefix("invalid \(variable)="), line)
            XCTAssertFalse(line.contains("\n"), line)
            for secret in ["hunter2", "smssecret", "secretkey1", ":pw@"] { XCTAssertFalse(line.contains(secret), line) }
        }
        XCTAssertTrue(refusal(["DATABSE_URL": "x"])?.contains("did you mean DATABASE_URL?") == true)
        // Decided otherwise, each starts: no mail at all, a shared secret, a relay or a stand-in on this machine.
        XCTAssertNil(refusal(["SMTP_URL": nil, "MAIL_DELIVERY": "none"]))
        XCTAssertNil(refusal(["DATABASE_URL": "postgres://app:hunter2@db.example.com/app", "JWT_SECRET": String(repeating: "s", count: 40)]))
        XCTAssertNil(refusal(["SMTP_URL": "smtp://127.0.0.1:2525?from=a@example.com"]))
        XCTAssertNil(refusal(["SMTP_URL": "smtp://smtp.example.com?from=a@example.com&starttls=required"]))
        XCTAssertNil(refusal(["PUSH_SERVICES": "https://fcm.googleapis.com,https://*.push.apple.com"]))
        // Shell variables and names far from ours are none of our business; development only reads.
        XCTAssertNil(refusal(["HOME": "/root", "MAIL": "/var/mail/root", "HOSTNAME": "web-1", "GREETING": "hi"]))
        XCTAssertNoThrow(try Settings.load(from: ["DATA_DIR": directory, "DATABSE_URL": "x"]))
        let noMail = try Settings.load(from: productionBase.merging(["SMTP_URL": "", "MAIL_DELIVERY": "none"]) { $1 })
        XCTAssertEqual(noMail.mail.delivery, .none)
        XCTAssertEqual(try Settings.load(from: ["DATA_DIR": directory, "MAIL_DELIVERY": "none"]).mail.delivery, .none,
                       "a development server may decide the same")
        // A TLS mode the driver does not know is refused here, where the password can be hidden.
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "DATABASE_URL": "postgres://app:hunter2@db/app?sslmode=bogus"])) {
            XCTAssertTrue("\($0)".hasPrefix("invalid DATABASE_URL="), "\($0)")
            XCTAssertFalse("\($0)".contains("hunter2"), "\($0)")
        }
        XCTAssertNoThrow(try Settings.load(from: ["DATA_DIR": directory, "DATABASE_URL": "postgres://app:hunter2@db/app?sslmode=verify-full"]))
        XCTAssertEqual(try Settings.load(from: ["DATA_DIR": directory, "DATABASE_POOL_SIZE": "20"]).databasePoolSize, 20)
        XCTAssertNil(try Settings.load(from: ["DATA_DIR": directory]).databasePoolSize)
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "DATABASE_POOL_SIZE": "0"]))
        XCTAssertEqual(try Settings.load(from: ["DATA_DIR": directory, "LOG_FORMAT": "JSON"]).logFormat, .json)
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "LOG_FORMAT": "xml"]))
        XCTAssertFalse(try Settings.load(from: ["DATA_DIR": directory, "ACCESS_LOG": "off"]).accessLog)
    }

    func testShopPaymentsAndDeliveryFee() throws {
        let development = try Settings.load(from: ["DATA_DIR": directory])
        XCTAssertEqual(development.shop, ShopSettings(gateway: .test, deliveryFee: 2_500, freeDeliveryFrom: 40_000))
        // Production never approves test payments: no gateway unless PortOne is configured, and then only by saying so.
        let production = try Settings.load(from: productionBase.merging(["PAYMENT_GATEWAY": "none"]) { $1 })
        XCTAssertEqual(production.shop.gateway, .none)
        XCTAssertThrowsError(try Settings.load(from: productionBase.merging(["PAYMENT_GATEWAY": "test"]) { $1 })) {
            XCTAssertTrue("\($0)".hasPrefix("invalid PAYMENT_GATEWAY=test"), "\($0)")
        }
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "PAYMENT_GATEWAY": "portone"])) {
            XCTAssertTrue("\($0)".contains("PORTONE_API_KEY"), "\($0)")
        }
        XCTAssertThrowsError(try Settings.load(from: ["DATA_DIR": directory, "PAYMENT_GATEWAY": "cash"]))
        let portOne = try Settings.load(from: productionBase.merging([
            "PAYMENT_GATEWAY": "PortOne", "PORTONE_API_KEY": "k", "PORTONE_API_SECRET": "s", "DELIVERY_FEE": "3000", "FREE_DELIVERY_FROM": "50000",
        ]) { $1 })
        var expected = ShopSettings(gateway: .portOne(url: "https://api.iamport.kr", apiKey: "k", apiSecret: "s"), deliveryFee: 3_000, freeDeliveryFrom: 50_000)
        expected.gatewayChosen = true
        XCTAssertEqual(portOne.shop, expected)
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
        XCTAssertThrowsError(try Settings.load(from: productionBase.merging(["FIREBASE_CERTS_URL": "http://certs.example.com/x"]) { $1 }))
        let local = try Settings.load(from: productionBase.merging(["FIREBASE_CERTS_URL": "http://localhost:9099/certs"]) { $1 })
        XCTAssertEqual(local.firebase.certificatesURL, "http://localhost:9099/certs")
    }
}
