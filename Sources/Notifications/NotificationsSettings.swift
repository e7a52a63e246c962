import Foundation
package import Messaging
package import Platform

/// Where pushes may go and who signs them. `settings.push`.
///
/// A subscription's endpoint is where this server will send requests, so it is an SSRF surface:
/// only endpoints at an origin of `PUSH_SERVICES` are accepted (by default the four public push
/// services, all https); a test's receiver is listed explicitly, `http://127.0.0.1:PORT` included.
package struct PushSettings: SettingsSection, Equatable {
    /// The browsers' push services: Chrome and Edge's FCM, Firefox's autopush, Safari's, Windows'.
    package static let publicServices = [
        "https://fcm.googleapis.com", "https://updates.push.services.mozilla.com", "https://web.push.apple.com", "https://*.notify.windows.com",
    ]

    /// Accepted endpoint origins: `scheme://host[:port]`, or `https://*.suffix` for a service
    /// whose hosts vary (Windows').
    package var services: [String] = PushSettings.publicServices
    /// `VAPID_PRIVATE_KEY` (base64url of the 32-byte P-256 scalar); nil: the key kept in the database.
    package var vapidPrivateKey: String?
    /// `VAPID_SUBJECT`: how the push services' operators reach ours (`mailto:` or `https:`).
    package var vapidSubject = "mailto:operator@whatweeat.invalid"
    /// `FCM_SERVICE_ACCOUNTS`: one Google service account per Firebase project whose app installs
    /// take pushes (the shipped apps'); none: nothing is sent to apps.
    package var fcmAccounts: [FCMServiceAccount] = []
    /// `FCM_API_URL`: where FCM HTTP v1 is (a test points it at its stand-in).
    package var fcmAPIURL = "https://fcm.googleapis.com"
    /// `FCM_MENU_GAME_PROJECT`: the Firebase project of the 우리뭐먹지 app, whose installs send their
    /// FCM token as `token` (with no project): its players are told when a room's result is in.
    package var fcmMenuGameProject: String?

    package init() {}

    /// Whether pushes may be sent to `endpoint`: an https (or listed http) URL at a listed origin,
    /// with no user name or password in it.
    package func accepts(_ endpoint: String) -> Bool {
        guard endpoint.utf8.count <= 1_024, let url = URL(string: endpoint), url.user == nil, url.password == nil,
              let origin = VAPID.origin(of: url) else { return false }
        return services.contains { service in
            if service == origin { return true }
            guard let star = service.range(of: "://*.") else { return false }
            let scheme = service[..<star.lowerBound], suffix = "." + service[star.upperBound...]
            return origin.hasPrefix(scheme + "://") && origin.hasSuffix(suffix) && !origin.contains("@")
        }
    }

    /// `PUSH_SERVICES` (comma-separated origins), `VAPID_PRIVATE_KEY`, `VAPID_SUBJECT`,
    /// `FCM_SERVICE_ACCOUNTS` (a JSON key, a JSON array of keys, or key files separated by commas),
    /// `FCM_MENU_GAME_PROJECT` and `FCM_API_URL`.
    package static func load(from environment: EnvironmentVariables) throws -> PushSettings {
        var push = PushSettings()
        if let listed = environment.value("PUSH_SERVICES") {
            let origins = listed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for origin in origins {
                let host = origin.replacingOccurrences(of: "://*.", with: "://")
                guard let url = URL(string: host), let normal = VAPID.origin(of: url), normal == host.lowercased(),
                      url.scheme == "https" || url.scheme == "http" else {
                    throw SettingsError(variable: "PUSH_SERVICES", value: origin, expected: "origins such as https://fcm.googleapis.com, comma-separated")
                }
            }
            push.services = origins.map { $0.lowercased() }
        }
        if let key = environment.value("VAPID_PRIVATE_KEY") {
            guard VAPID.privateKey(fromText: key) != nil else {
                throw SettingsError(variable: "VAPID_PRIVATE_KEY", value: "(hidden)", expected: "a P-256 private key: 32 bytes, base64url")
            }
            push.vapidPrivateKey = key
        }
        if let subject = environment.value("VAPID_SUBJECT") {
            guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://") else {
                throw SettingsError(variable: "VAPID_SUBJECT", value: subject, expected: "a mailto: or https: URL")
            }
            push.vapidSubject = subject
        }
        if let accounts = environment.value("FCM_SERVICE_ACCOUNTS") {
            do {
                push.fcmAccounts = try FCMServiceAccount.accounts(fromSetting: accounts) { path in
                    guard let data = FileManager.default.contents(atPath: path) else { throw FCMServiceAccount.Problem.notJSON }
                    return data
                }
            } catch {
                throw SettingsError(variable: "FCM_SERVICE_ACCOUNTS", value: "(hidden)",
                                    expected: "Google service-account keys (JSON, written out or as files separated by commas), one per Firebase project")
            }
        }
        if let project = environment.value("FCM_MENU_GAME_PROJECT"), !project.isEmpty {
            guard push.fcmAccounts.contains(where: { $0.projectID == project }) else {
                throw SettingsError(variable: "FCM_MENU_GAME_PROJECT", value: project, expected: "the project id of one of FCM_SERVICE_ACCOUNTS' keys")
            }
            push.fcmMenuGameProject = project
        }
        if let url = environment.value("FCM_API_URL") {
            guard let parsed = URL(string: url), parsed.scheme == "https" || parsed.scheme == "http", parsed.host != nil else {
                throw SettingsError(variable: "FCM_API_URL", value: url, expected: "an http(s) URL such as https://fcm.googleapis.com")
            }
            push.fcmAPIURL = url
        }
        return push
    }

    /// A push service on another machine only over TLS (its VAPID token would cross in clear).
    package func productionProblem(in settings: Settings) -> SettingsError? {
        services.lazy.compactMap { Settings.cleartextProblem("PUSH_SERVICES", url: $0.replacingOccurrences(of: "://*.", with: "://")) }.first
            ?? Settings.cleartextProblem("FCM_API_URL", url: fcmAPIURL)
            ?? fcmAccounts.lazy.compactMap { Settings.cleartextProblem("FCM_SERVICE_ACCOUNTS", url: $0.tokenURI) }.first
    }
}

extension Settings {
    package var push: PushSettings {
        get { self[section: PushSettings.self] }
        set { self[section: PushSettings.self] = newValue }
    }
}
