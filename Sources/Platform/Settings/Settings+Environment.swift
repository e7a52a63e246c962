import Foundation
import NIOCore
import Logging

/// How `Settings` are read from the environment: each variable parsed and range-checked, with
/// the safe default for a local run when it is unset. The settings themselves are in Settings.swift.
extension Settings {
    /// Reads and validates the environment. Creates the data directory and, when `JWT_SECRET`
    /// is unset, the secret file inside it (mode 0600) so tokens survive restarts.
    /// Every feature's `sections` are read after the platform's own values (`Features.settingsSections`).
    /// `makingData: false` (commands that act on an existing site) creates nothing: without a
    /// secret file the secret is one for this process only (such a command then finds no site).
    package static func load(from environment: [String: String], sections: [any SettingsSection.Type], makingData: Bool = true) throws -> Settings {
        var variables = EnvironmentVariables(values: environment, appEnvironment: .development)
        func value(_ name: String) -> String? { variables.value(name) }
        func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
            try variables.integer(name, default: fallback, in: range)
        }

        let host = value("HOST") ?? "127.0.0.1"
        guard host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:_".contains($0) }) else {
            throw SettingsError(variable: "HOST", value: host, expected: "a host name or IP address")
        }
        let port = try integer("PORT", default: 8080, in: 1...65535)

        let dataDirectory = value("DATA_DIR") ?? "./data"
        let database: Database
        if let url = value("DATABASE_URL") {
            guard let parsed = URLComponents(string: url), ["postgres", "postgresql"].contains(parsed.scheme ?? ""),
                  parsed.host?.isEmpty == false, parsed.user?.isEmpty == false
            else {
                throw SettingsError(variable: "DATABASE_URL", value: EnvironmentVariables.redactPassword(url), expected: "a postgres://user:password@host:port/database URL")
            }
            // The driver's TLS modes (libpq's names as aliases); checked here, where the error can hide the password.
            let modes: Set<String> = ["disable", "false", "prefer", "allow", "true", "require", "verify-ca", "verify-full"]
            if let mode = parsed.queryItems?.last(where: { ["tlsmode", "sslmode", "ssl", "tls"].contains($0.name.lowercased()) }),
               !modes.contains(mode.value ?? "") {
                throw SettingsError(variable: "DATABASE_URL", value: EnvironmentVariables.redactPassword(url),
                                    expected: "\(mode.name) to be disable, prefer or require (verify-full and verify-ca mean require: certificates are always verified)")
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
        // In production (PUBLIC_URL set) only the hosts we serve are answered (`ServedHosts`).
        var servedHosts: ServedHosts?
        let servedEntries = (value("SERVED_HOSTS") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if value("PUBLIC_URL") != nil {
            guard let served = ServedHosts(publicURL: publicURL, entries: servedEntries) else {
                throw SettingsError(variable: "SERVED_HOSTS", value: servedEntries.joined(separator: ","),
                                    expected: "host names, host:port or http(s)://host[:port], separated by commas")
            }
            servedHosts = served
        } else if !servedEntries.isEmpty {
            throw SettingsError(variable: "SERVED_HOSTS", value: servedEntries.joined(separator: ","), expected: "to be set together with PUBLIC_URL")
        }

        var logLevel = Logger.Level.info
        if let raw = value("LOG_LEVEL") {
            guard let level = Logger.Level(rawValue: raw.lowercased()) else {
                throw SettingsError(variable: "LOG_LEVEL", value: raw, expected: Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))
            }
            logLevel = level
        }

        var logFormat = LogFormat.text
        if let raw = value("LOG_FORMAT") {
            guard let format = LogFormat(rawValue: raw.lowercased()) else {
                throw SettingsError(variable: "LOG_FORMAT", value: raw, expected: "text or json")
            }
            logFormat = format
        }
        var accessLog = true
        switch value("ACCESS_LOG")?.lowercased() {
        case nil, "on": break
        case "off": accessLog = false
        case let other?: throw SettingsError(variable: "ACCESS_LOG", value: other, expected: "on or off")
        }

        var appEnvironment = AppEnvironment.development
        if let raw = value("APP_ENV") {
            guard let parsed = AppEnvironment(rawValue: raw.lowercased()) else {
                throw SettingsError(variable: "APP_ENV", value: raw, expected: AppEnvironment.allCases.map(\.rawValue).joined(separator: ", "))
            }
            appEnvironment = parsed
        }
        variables = variables.reading(as: appEnvironment)

        let accessTTL = try integer("ACCESS_TOKEN_TTL", default: 15 * 60, in: 60...86_400)
        let refreshTTL = try integer("REFRESH_TOKEN_TTL", default: 30 * 24 * 3600, in: 3600...(365 * 24 * 3600))
        let bcryptCost = try integer("BCRYPT_COST", default: 12, in: 4...16)

        let limits = Limits(
            passwordChecksPerMinute: try integer("AUTH_ATTEMPTS_PER_MINUTE", default: 60, in: 1...1_000_000),
            idleTimeout: try integer("IDLE_TIMEOUT", default: 30, in: 1...3_600),
            socketsPerClient: try integer("MAX_SOCKETS_PER_CLIENT", default: 256, in: 1...1_000_000),
            uploadQuotaMB: try integer("UPLOAD_QUOTA_MB", default: 200, in: 1...1_000_000),
            minimumFreeDiskMB: try integer("MIN_FREE_DISK_MB", default: 512, in: 0...100_000_000),
            newAccountUploadQuotaMB: try integer("UPLOAD_QUOTA_NEW_ACCOUNT_MB", default: 20, in: 1...1_000_000),
            networkDailyUploadMB: try integer("UPLOAD_MB_PER_NETWORK_DAY", default: 100, in: 1...100_000_000),
            passwordResetsPerHour: try integer("PASSWORD_RESETS_PER_HOUR", default: 20, in: 1...1_000_000)
        )

        var retention = Retention()
        retention.sessionsDays = try integer("RETAIN_SESSIONS_DAYS", default: 30, in: 1...3_650)
        retention.loginFailuresDays = try integer("RETAIN_LOGIN_FAILURES_DAYS", default: 30, in: 1...3_650)
        retention.codesDays = try integer("RETAIN_CODES_DAYS", default: 1, in: 1...3_650)
        retention.readNotificationsDays = try integer("RETAIN_READ_NOTIFICATIONS_DAYS", default: 180, in: 1...36_500)

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
        switch value("LEAFLET_CDN")?.lowercased() {
        case nil, "on": break
        case "off": map.leafletCDN = nil
        case let other?: throw SettingsError(variable: "LEAFLET_CDN", value: other, expected: "on or off")
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

        if makingData { try createDirectory(dataDirectory) }
        let secret: String
        if let raw = value("JWT_SECRET") {
            guard raw.utf8.count >= 32 else {
                throw SettingsError(variable: "JWT_SECRET", value: "(\(raw.utf8.count) bytes)", expected: "at least 32 bytes")
            }
            secret = raw
        } else {
            secret = try loadOrCreateSecret(in: dataDirectory, creating: makingData)
        }

        var settings = Settings(
            host: host, port: port, dataDirectory: dataDirectory, database: database, publicURL: publicURL,
            logLevel: logLevel, jwtSecret: secret, accessTokenTTL: TimeInterval(accessTTL),
            refreshTokenTTL: TimeInterval(refreshTTL), bcryptCost: bcryptCost, appEnvironment: appEnvironment
        )
        if value("DATABASE_POOL_SIZE") != nil {
            settings.databasePoolSize = try integer("DATABASE_POOL_SIZE", default: 8, in: 1...10_000)
        }
        settings.logFormat = logFormat
        settings.accessLog = accessLog
        settings.metricsToken = metricsToken
        settings.trustedProxies = trustedProxies
        settings.servedHosts = servedHosts
        settings.instanceName = instanceName
        settings.limits = limits
        settings.retention = retention
        settings.map = map
        settings.resourcesDirectory = value("RESOURCES_DIR")
        for section in sections { try settings.load(section, from: variables) }
        if let problem = settings.productionProblem(variables: variables, sections: sections) { throw problem }
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
    private static func loadOrCreateSecret(in directory: String, creating: Bool) throws -> String {
        let path = (directory as NSString).appendingPathComponent("jwt-secret")
        if let existing = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
           existing.utf8.count >= 32 {
            return existing
        }
        let secret = SecureRandom.token(bytes: 48)
        guard creating else { return secret }
        let created = FileManager.default.createFile(
            atPath: path, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600]
        )
        guard created else {
            throw SettingsError(variable: "JWT_SECRET", value: "(unset)", expected: "a writable \(path) to keep a generated secret")
        }
        return secret
    }

    private mutating func load<Section: SettingsSection>(_ section: Section.Type, from variables: EnvironmentVariables) throws {
        self[section: Section.self] = try Section.load(from: variables)
    }
}
