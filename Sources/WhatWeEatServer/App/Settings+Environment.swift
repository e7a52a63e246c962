import Foundation
import NIOCore
import Logging

/// How `Settings` are read from the environment: each variable parsed and range-checked, with
/// the safe default for a local run when it is unset. The settings themselves are in Settings.swift.
extension Settings {
    /// Reads and validates the environment. Creates the data directory and, when `JWT_SECRET`
    /// is unset, the secret file inside it (mode 0600) so tokens survive restarts.
    public static func load(from environment: [String: String]) throws -> Settings {
        func value(_ name: String) -> String? {
            guard let raw = environment[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            return raw
        }
        func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
            guard let raw = value(name) else { return fallback }
            guard let number = Int(raw), range.contains(number) else {
                throw SettingsError(variable: name, value: raw, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }

        let host = value("HOST") ?? "127.0.0.1"
        guard host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:_".contains($0) }) else {
            throw SettingsError(variable: "HOST", value: host, expected: "a host name or IP address")
        }
        let port = try integer("PORT", default: 8080, in: 1...65535)

        let dataDirectory = value("DATA_DIR") ?? "./data"
        let database: Database
        if let url = value("DATABASE_URL") {
            guard let parsed = URL(string: url), ["postgres", "postgresql"].contains(parsed.scheme ?? ""),
                  parsed.host?.isEmpty == false
            else {
                throw SettingsError(variable: "DATABASE_URL", value: redactPassword(url), expected: "a postgres://user:password@host:port/database URL")
            }
            database = .postgres(url: url)
        } else {
            database = .sqlite(path: (dataDirectory as NSString).appendingPathComponent("whatweeat.sqlite"))
        }

        var publicURL = "http://\(host):\(port)"
        if let raw = value("PUBLIC_URL") {
            guard let url = URL(string: raw), ["http", "https"].contains(url.scheme ?? ""), url.host?.isEmpty == false else {
                throw SettingsError(variable: "PUBLIC_URL", value: raw, expected: "an http:// or https:// URL")
            }
            publicURL = raw.hasSuffix("/") ? String(raw.dropLast()) : raw
        }

        var logLevel = Logger.Level.info
        if let raw = value("LOG_LEVEL") {
            guard let level = Logger.Level(rawValue: raw.lowercased()) else {
                throw SettingsError(variable: "LOG_LEVEL", value: raw, expected: Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))
            }
            logLevel = level
        }

        var appEnvironment = AppEnvironment.development
        if let raw = value("APP_ENV") {
            guard let parsed = AppEnvironment(rawValue: raw.lowercased()) else {
                throw SettingsError(variable: "APP_ENV", value: raw, expected: AppEnvironment.allCases.map(\.rawValue).joined(separator: ", "))
            }
            appEnvironment = parsed
        }

        let accessTTL = try integer("ACCESS_TOKEN_TTL", default: 15 * 60, in: 60...86_400)
        let refreshTTL = try integer("REFRESH_TOKEN_TTL", default: 30 * 24 * 3600, in: 3600...(365 * 24 * 3600))
        let bcryptCost = try integer("BCRYPT_COST", default: 12, in: 4...16)

        let limits = Limits(
            passwordChecksPerMinute: try integer("AUTH_ATTEMPTS_PER_MINUTE", default: 30, in: 1...1_000_000),
            idleTimeout: try integer("IDLE_TIMEOUT", default: 30, in: 1...3_600),
            socketsPerClient: try integer("MAX_SOCKETS_PER_CLIENT", default: 64, in: 1...1_000_000),
            uploadQuotaMB: try integer("UPLOAD_QUOTA_MB", default: 200, in: 1...1_000_000),
            minimumFreeDiskMB: try integer("MIN_FREE_DISK_MB", default: 512, in: 0...100_000_000)
        )

        var shop = Shop()
        shop.deliveryFee = try integer("DELIVERY_FEE", default: 2_500, in: 0...1_000_000)
        shop.freeDeliveryFrom = try integer("FREE_DELIVERY_FROM", default: 40_000, in: 0...100_000_000)
        shop.paymentWindow = TimeInterval(try integer("PAYMENT_WINDOW", default: 30 * 60, in: 60...(7 * 24 * 3600)))
        switch value("PAYMENT_GATEWAY")?.lowercased() {
        case nil:
            shop.gateway = appEnvironment == .production ? .none : .test
        case "test":
            guard appEnvironment != .production else {
                throw SettingsError(variable: "PAYMENT_GATEWAY", value: "test", expected: "portone when APP_ENV=production (the test gateway approves anything marked as test)")
            }
            shop.gateway = .test
        case "portone":
            guard let key = value("PORTONE_API_KEY"), let secret = value("PORTONE_API_SECRET") else {
                throw SettingsError(variable: "PAYMENT_GATEWAY", value: "portone", expected: "PORTONE_API_KEY and PORTONE_API_SECRET to be set")
            }
            let url = value("PORTONE_API_URL") ?? "https://api.iamport.kr"
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host?.isEmpty == false else {
                throw SettingsError(variable: "PORTONE_API_URL", value: url, expected: "an http:// or https:// URL")
            }
            shop.gateway = .portOne(url: url.hasSuffix("/") ? String(url.dropLast()) : url, apiKey: key, apiSecret: secret)
        case let other?:
            throw SettingsError(variable: "PAYMENT_GATEWAY", value: other, expected: "test or portone")
        }

        var map = MapSettings()
        if let tiles = value("MAP_TILE_URL") {
            let absolute = tiles.hasPrefix("https://") || tiles.hasPrefix("http://")
            let placeholders = ["{z}", "{x}", "{y}"].allSatisfy(tiles.contains)
            let unsafe = tiles.contains { $0 == "\"" || $0 == "'" || $0 == "<" || $0 == ">" || $0 == ";" || $0 == " " || $0 == "\\" }
            guard placeholders, !unsafe, absolute || (tiles.hasPrefix("/") && !tiles.hasPrefix("//")) else {
                throw SettingsError(variable: "MAP_TILE_URL", value: tiles, expected: "an http(s):// URL or a /path holding {z}, {x} and {y}")
            }
            map.tileURL = tiles
        }
        if let attribution = value("MAP_TILE_ATTRIBUTION") { map.tileAttribution = attribution }
        if let directory = value("LEAFLET_DIR") { map.leafletDirectory = directory }
        for raw in (value("LSLP_API_KEYS") ?? "").split(separator: ",") {
            let key = raw.trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { continue }
            guard key.utf8.count <= 200, key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw SettingsError(variable: "LSLP_API_KEYS", value: "(\(key.utf8.count) bytes)", expected: "keys of printable characters without spaces, separated by commas")
            }
            if !map.lslpAPIKeys.contains(key) { map.lslpAPIKeys.append(key) }
        }
        switch value("LEAFLET_CDN")?.lowercased() {
        case nil, "on": break
        case "off": map.leafletCDN = nil
        case let other?: throw SettingsError(variable: "LEAFLET_CDN", value: other, expected: "on or off")
        }

        var mates = MatesSettings()
        mates.radiusMeters = Double(try integer("MATES_RADIUS_METERS", default: 1_500, in: 100...50_000))
        mates.codesPerAddressPerHour = try integer("MATES_CODES_PER_ADDRESS_HOUR", default: 30, in: 1...1_000_000)
        mates.codesPerAddressPerDay = try integer("MATES_CODES_PER_ADDRESS_DAY", default: 200, in: 1...1_000_000)
        if let smtp = value("SMTP_URL") {
            do { _ = try SMTPConfiguration(url: smtp) } catch {
                throw SettingsError(variable: "SMTP_URL", value: redactPassword(smtp), expected: "smtp://[user:password@]host[:port][?from=address] or smtps://… (\(error))")
            }
            mates.smtpURL = smtp
        }
        switch (value("APPSTORE_ROOT_CERT"), value("APPSTORE_VERIFIER")?.lowercased()) {
        case (let root?, nil), (let root?, "appstore"?):
            guard FileManager.default.isReadableFile(atPath: root) else {
                throw SettingsError(variable: "APPSTORE_ROOT_CERT", value: root, expected: "a readable PEM or DER file (Apple Root CA - G3)")
            }
            guard (try? StoreKitTransactionVerifier.loadRoot(path: root)) != nil else {
                throw SettingsError(variable: "APPSTORE_ROOT_CERT", value: root, expected: "an X.509 certificate in PEM or DER (Apple Root CA - G3)")
            }
            guard let bundle = value("APPSTORE_BUNDLE_ID") else {
                throw SettingsError(variable: "APPSTORE_BUNDLE_ID", value: "(unset)", expected: "the app's bundle id, with APPSTORE_ROOT_CERT")
            }
            let known: Set<String> = ["Production", "Sandbox", "Xcode"]
            let environments = Set((value("APPSTORE_ENVIRONMENTS") ?? "Production").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            })
            guard !environments.isEmpty, environments.isSubset(of: known) else {
                throw SettingsError(variable: "APPSTORE_ENVIRONMENTS", value: value("APPSTORE_ENVIRONMENTS") ?? "",
                                    expected: "a comma-separated list of Production, Sandbox, Xcode")
            }
            mates.appStore = .apple(rootCertificatePath: root, bundleID: bundle, environments: environments)
        case (nil, nil):
            mates.appStore = appEnvironment == .production ? .none : .test
        case (_, "test"?):
            guard appEnvironment != .production else {
                throw SettingsError(variable: "APPSTORE_VERIFIER", value: "test", expected: "appstore when APP_ENV=production (the test verifier grants anything marked as test)")
            }
            mates.appStore = .test
        case (nil, "appstore"?):
            throw SettingsError(variable: "APPSTORE_VERIFIER", value: "appstore", expected: "APPSTORE_ROOT_CERT and APPSTORE_BUNDLE_ID to be set")
        case (_, let other?):
            throw SettingsError(variable: "APPSTORE_VERIFIER", value: other, expected: "test or appstore")
        }

        var firebase = FirebaseSettings()
        for raw in (value("FIREBASE_PROJECT_IDS") ?? "").split(separator: ",") {
            let id = raw.trimmingCharacters(in: .whitespaces)
            guard !id.isEmpty else { continue }
            let allowed = id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || "-.:".utf8.contains($0) }
            guard allowed, id.utf8.count <= 100, let first = id.utf8.first, (0x61...0x7A).contains(first) else {
                throw SettingsError(variable: "FIREBASE_PROJECT_IDS", value: id,
                                    expected: "Firebase project ids separated by commas (lowercase letters, digits, '-', '.', ':'; starting with a letter)")
            }
            if !firebase.projectIDs.contains(id) { firebase.projectIDs.append(id) }
        }
        if let url = value("FIREBASE_CERTS_URL") {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), let host = parsed.host, !host.isEmpty else {
                throw SettingsError(variable: "FIREBASE_CERTS_URL", value: url, expected: "an http:// or https:// URL")
            }
            // Whoever serves the certificates decides which tokens are good: plain http only to this machine.
            guard parsed.scheme == "https" || appEnvironment != .production || ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) else {
                throw SettingsError(variable: "FIREBASE_CERTS_URL", value: url, expected: "an https:// URL when APP_ENV=production (http only to this machine)")
            }
            firebase.certificatesURL = url
        }

        let metricsToken = value("METRICS_TOKEN")
        if let metricsToken, metricsToken.utf8.count < 16 || !metricsToken.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            throw SettingsError(variable: "METRICS_TOKEN", value: "(\(metricsToken.utf8.count) bytes)", expected: "at least 16 printable characters, no spaces")
        }

        var trustedProxies: Set<String> = []
        for raw in (value("TRUSTED_PROXIES") ?? "").split(separator: ",") {
            let address = raw.trimmingCharacters(in: .whitespaces)
            guard (try? SocketAddress(ipAddress: address, port: 0)) != nil else {
                throw SettingsError(variable: "TRUSTED_PROXIES", value: address, expected: "IP addresses separated by commas")
            }
            trustedProxies.insert(address)
        }
        let instanceName = value("INSTANCE_NAME")
        if let instanceName, instanceName.isEmpty || instanceName.count > 64 || !instanceName.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) {
            throw SettingsError(variable: "INSTANCE_NAME", value: instanceName, expected: "1-64 letters, digits, '-', '_' or '.'")
        }

        try createDirectory(dataDirectory)
        let secret: String
        if let raw = value("JWT_SECRET") {
            guard raw.utf8.count >= 32 else {
                throw SettingsError(variable: "JWT_SECRET", value: "(\(raw.utf8.count) bytes)", expected: "at least 32 bytes")
            }
            secret = raw
        } else {
            secret = try loadOrCreateSecret(in: dataDirectory)
        }

        var settings = Settings(
            host: host, port: port, dataDirectory: dataDirectory, database: database, publicURL: publicURL,
            logLevel: logLevel, jwtSecret: secret, accessTokenTTL: TimeInterval(accessTTL),
            refreshTokenTTL: TimeInterval(refreshTTL), bcryptCost: bcryptCost, appEnvironment: appEnvironment
        )
        settings.shop = shop
        settings.metricsToken = metricsToken
        settings.trustedProxies = trustedProxies
        settings.instanceName = instanceName
        settings.limits = limits
        settings.map = map
        settings.mates = mates
        settings.firebase = firebase
        settings.resourcesDirectory = value("RESOURCES_DIR")
        return settings
    }

    private static func createDirectory(_ path: String) throws {
        do {
            // The owner's alone (0700), whatever the umask of whoever runs it.
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SettingsError(variable: "DATA_DIR", value: path, expected: "a directory the server can create and write")
        }
        guard FileManager.default.isWritableFile(atPath: path) else {
            throw SettingsError(variable: "DATA_DIR", value: path, expected: "a directory the server can write")
        }
    }

    /// The generated secret lives in `DATA_DIR/jwt-secret`, readable by the owner only.
    private static func loadOrCreateSecret(in directory: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent("jwt-secret")
        if let existing = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
           existing.utf8.count >= 32 {
            return existing
        }
        let secret = SecureRandom.token(bytes: 48)
        let created = FileManager.default.createFile(
            atPath: path, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600]
        )
        guard created else {
            throw SettingsError(variable: "JWT_SECRET", value: "(unset)", expected: "a writable \(path) to keep a generated secret")
        }
        return secret
    }

    private static func redactPassword(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "(unparseable)"
    }
}
