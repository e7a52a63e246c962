public import Foundation
import NIOCore
public import Logging

/// Everything the server reads from its environment, validated once at start-up.
///
/// Every variable has a safe default for a local run; a bad value throws a `SettingsError`
/// whose description is the one line the executable prints before exiting non-zero.
public struct Settings: Sendable {
    public enum AppEnvironment: String, Sendable, CaseIterable {
        case development, production, testing
    }

    public enum Database: Sendable, Equatable {
        /// A SQLite file (WAL mode) at this path.
        case sqlite(path: String)
        /// A PostgreSQL server reached by this URL.
        case postgres(url: String)
    }

    public var host: String
    public var port: Int
    public var dataDirectory: String
    /// `RESOURCES_DIR`: the folder holding `Resources/`, `Public/` and `openapi.yaml`; nil looks
    /// beside the executable, then in the working directory (`ResourceRoot`).
    public var resourcesDirectory: String?
    public var database: Database
    public var publicURL: String
    public var logLevel: Logger.Level
    /// `LOG_FORMAT`: swift-log's text lines, or one JSON object per line (`OperatorLogs`).
    public var logFormat: LogFormat = .text
    /// `DATABASE_POOL_SIZE`: PostgreSQL connections one instance may open for requests (spread
    /// over its event loops; one more listens for events); nil keeps 8 per event loop.
    public var databasePoolSize: Int?
    /// `ACCESS_LOG`: a line per request at `info` (`off` silences it).
    public var accessLog = true

    public enum LogFormat: String, Sendable, CaseIterable {
        case text, json
    }
    public var jwtSecret: String
    public var accessTokenTTL: TimeInterval
    public var refreshTokenTTL: TimeInterval
    public var bcryptCost: Int
    public var appEnvironment: AppEnvironment
    /// Failed logins allowed for one email inside `loginFailureWindow` before 429.
    public var maxLoginFailures: Int = 10
    public var loginFailureWindow: TimeInterval = 15 * 60
    /// What one client address or connection may hold or try.
    public var limits = Limits()
    /// `METRICS_TOKEN`: a bearer token that may read `/metrics` from anywhere (loopback may without).
    public var metricsToken: String?
    /// `TRUSTED_PROXIES`: addresses of the reverse proxies in front; a request from one of them is
    /// from the client its `X-Forwarded-For` names (per-address limits count clients, not the proxy).
    public var trustedProxies: Set<String> = []
    /// The hosts answered in production (`PUBLIC_URL`'s and `SERVED_HOSTS`); nil for a local run,
    /// where every host is. Others get 421 (`ServedHostsMiddleware`), which defeats DNS rebinding.
    package var servedHosts: ServedHosts?
    /// `INSTANCE_NAME`: sent back as `X-Served-By` on every answer, to tell instances apart behind a proxy.
    public var instanceName: String?

    /// What this process's database connections call themselves on PostgreSQL (`application_name`,
    /// seen in `pg_stat_activity`): the instance and the process, so an operator can tell whose a
    /// connection is and the pool's metrics can count their own (at most 63 bytes, PostgreSQL's limit).
    public var databaseApplicationName: String {
        String("whatweeat \(instanceName ?? Self.hostName) \(ProcessInfo.processInfo.processIdentifier)".utf8.prefix(63)) ?? "whatweeat"
    }
    /// Read once: Foundation may ask the resolver for it.
    private static let hostName = ProcessInfo.processInfo.hostName

    /// How long rows past their use are kept before the daily prune (`DailyPrune`) removes them.
    public var retention = Retention()

    public struct Retention: Sendable, Equatable {
        /// `RETAIN_SESSIONS_DAYS`: signed-out and expired sessions, with their refresh tokens.
        public var sessionsDays = 30
        /// `RETAIN_LOGIN_FAILURES_DAYS`: failed logins (each holds the address typed).
        public var loginFailuresDays = 30
        /// `RETAIN_CODES_DAYS`: used or expired verification codes and reset links (at least a
        /// day: the codes' daily budgets count them).
        public var codesDays = 1
        /// `RETAIN_READ_NOTIFICATIONS_DAYS`: inbox entries read this long ago.
        public var readNotificationsDays = 180

        public init() {}
    }

    public struct Limits: Sendable, Equatable {
        /// `AUTH_ATTEMPTS_PER_MINUTE`: sign-ups one network (an IPv4 address, an IPv6 /64) may try
        /// in a minute, and logins likewise (each costs a bcrypt; `AccountLimits`).
        public var passwordChecksPerMinute = 60
        /// Seconds a connection may send and receive nothing before it is closed.
        public var idleTimeout = 30
        /// `MAX_SOCKETS_PER_CLIENT`: live sockets one network (an IPv4 address, an IPv6 /64) may
        /// hold open at once; its IPv6 /48 ten times as many. A class behind one NAT holds a few each.
        public var socketsPerClient = 256
        /// Megabytes of uploaded files (photos, a profile picture) one account may store.
        public var uploadQuotaMB = 200
        /// `UPLOAD_QUOTA_NEW_ACCOUNT_MB`: the same for an account younger than three days (accounts
        /// cost one sign-up; a full quota each would let one address claim gigabytes a minute).
        public var newAccountUploadQuotaMB = 20
        /// `UPLOAD_MB_PER_NETWORK_DAY`: megabytes the accounts younger than three days may upload
        /// in one day from one network (an IPv4 address, an IPv6 /64), together.
        public var networkDailyUploadMB = 100
        /// Uploads are refused (503) while the uploads folder's disk has less free than this.
        public var minimumFreeDiskMB = 512
        /// `PASSWORD_RESETS_PER_HOUR`: "forgot password" requests one network may make in an hour.
        public var passwordResetsPerHour = 20

        public init(passwordChecksPerMinute: Int = 60, idleTimeout: Int = 30, socketsPerClient: Int = 256,
                    uploadQuotaMB: Int = 200, minimumFreeDiskMB: Int = 512, newAccountUploadQuotaMB: Int = 20, networkDailyUploadMB: Int = 100,
                    passwordResetsPerHour: Int = 20) {
            self.passwordChecksPerMinute = passwordChecksPerMinute
            self.idleTimeout = idleTimeout
            self.socketsPerClient = socketsPerClient
            self.uploadQuotaMB = uploadQuotaMB
            self.minimumFreeDiskMB = minimumFreeDiskMB
            self.newAccountUploadQuotaMB = newAccountUploadQuotaMB
            self.networkDailyUploadMB = networkDailyUploadMB
            self.passwordResetsPerHour = passwordResetsPerHour
        }
    }

    /// Where the map pages get their library and tiles.
    public var map = MapSettings()

    public struct MapSettings: Sendable, Equatable {
        /// Leaflet from a CDN when Debian's copy is not installed: pinned with its published
        /// Subresource Integrity hashes, so a changed file is refused by the browser.
        public struct CDN: Sendable, Equatable {
            public var script = "https://unpkg.com/leaflet@1.9.4/dist/leaflet.js"
            public var scriptIntegrity = "sha256-20nQCchB9co0qIjJZRGuk2/Z9VM+kNiyxNV1lvTlZBo="
            public var stylesheet = "https://unpkg.com/leaflet@1.9.4/dist/leaflet.css"
            public var stylesheetIntegrity = "sha256-p4NxAoJBhIIN+hmNHrzRCf9tD/miZyoHS5obTRR9BMY="
            public init() {}
        }

        /// An `{z}/{x}/{y}` tile address template (`{s}` for a subdomain), absolute or a path of this site.
        public var tileURL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
        /// Shown in the map's corner; tile providers require it. HTML (links), set by the operator.
        public var tileAttribution = "&copy; <a href=\"https://www.openstreetmap.org/copyright\">OpenStreetMap</a> contributors"
        /// Debian's `libjs-leaflet` files, served under `/vendor/leaflet` when they are there.
        public var leafletDirectory = "/usr/share/javascript/leaflet"
        /// Used when the directory holds no Leaflet; nil (`LEAFLET_CDN=off`) means list mode only.
        public var leafletCDN: CDN? = CDN()
        public init() {}

        /// The origin the tiles come from as the Content-Security-Policy writes it (`{s}`
        /// subdomains become `*`); nil for tiles served by this site.
        public var tileOrigin: String? {
            guard let schemeEnd = tileURL.range(of: "://") else { return nil }
            let afterScheme = tileURL[schemeEnd.upperBound...]
            let host = afterScheme.prefix { $0 != "/" }
            return tileURL[..<schemeEnd.upperBound] + host.replacingOccurrences(of: "{s}", with: "*")
        }
    }

    /// Each feature's own settings (`SettingsSection`), by type; a section not loaded has its defaults.
    private var sections: [ObjectIdentifier: any SettingsSection] = [:]

    package subscript<Section: SettingsSection>(section section: Section.Type) -> Section {
        get { sections[ObjectIdentifier(Section.self)] as? Section ?? Section() }
        set { sections[ObjectIdentifier(Section.self)] = newValue }
    }

    /// Whether cookies get the `Secure` flag: only when the public URL is https.
    public var usesSecureCookies: Bool { publicURL.hasPrefix("https://") }

    public init(
        host: String = "127.0.0.1", port: Int = 8080, dataDirectory: String, database: Database,
        publicURL: String? = nil, logLevel: Logger.Level = .info, jwtSecret: String,
        accessTokenTTL: TimeInterval = 15 * 60, refreshTokenTTL: TimeInterval = 30 * 24 * 3600,
        bcryptCost: Int = 12, appEnvironment: AppEnvironment = .development
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.database = database
        self.publicURL = publicURL ?? "http://\(host):\(port)"
        self.logLevel = logLevel
        self.jwtSecret = jwtSecret
        self.accessTokenTTL = accessTokenTTL
        self.refreshTokenTTL = refreshTokenTTL
        self.bcryptCost = bcryptCost
        self.appEnvironment = appEnvironment
    }
}

/// A feature's own settings, read by the feature from the environment at start-up and kept in
/// `Settings` by type (`settings[section: ShopSettings.self]`, or the feature's own accessor).
package protocol SettingsSection: Sendable {
    /// The defaults, for a local run.
    init()
    static func load(from environment: EnvironmentVariables) throws -> Self
    /// Why a production server (`APP_ENV=production`) must not start with this section as it
    /// is, asked once every section is read (`settings` whole, for rules across sections); nil
    /// when it is fit (the default). Settings+Production.swift has the platform's own rules.
    func productionProblem(in settings: Settings) -> SettingsError?
}

/// A configuration value the server cannot start with. Its description is one line.
public struct SettingsError: Error, CustomStringConvertible {
    public let variable: String
    public let value: String
    public let expected: String

    public var description: String { "invalid \(variable)=\(value): expected \(expected)" }

    package init(variable: String, value: String, expected: String) {
        self.variable = variable
        self.value = value
        self.expected = expected
    }
}

public import Vapor

extension Application {
    private struct SettingsKey: StorageKey { typealias Value = Settings }

    /// The settings `configure` was called with.
    public var settings: Settings {
        get { configured(SettingsKey.self) }
        set { storage[SettingsKey.self] = newValue }
    }
}

extension Settings.Database {
    /// For logs: the SQLite path, or the PostgreSQL host and database without credentials.
    public var summary: String {
        switch self {
        case .sqlite(let path): return "SQLite \(path)"
        case .postgres(let url):
            let parsed = URLComponents(string: url)
            return "PostgreSQL \(parsed?.host ?? "?"):\(parsed?.port ?? 5432)\(parsed?.path ?? "")"
        }
    }
}
