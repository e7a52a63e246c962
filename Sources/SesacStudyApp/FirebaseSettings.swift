import Foundation
package import Platform
import SocketIO

/// Which Firebase projects' ID tokens are accepted (the 새싹 스터디 apps' `idtoken` header).
/// `settings.firebase`.
package struct FirebaseSettings: SettingsSection, Equatable {
    /// `FIREBASE_PROJECT_IDS`: tokens for these projects are accepted; empty turns the feature off.
    package var projectIDs: [String] = []
    /// `FIREBASE_CERTS_URL`: where Google publishes the certificates that sign the tokens.
    package var certificatesURL = FirebaseIDTokenVerifier.googleCertificatesURL
    /// `SESAC_SOCKET_WAIT_SECONDS`: how long a chat socket may wait to be bound (`bind_pending`)
    /// before it is let go (600).
    var socketWaitSeconds = 600

    package init(projectIDs: [String] = [], certificatesURL: String = FirebaseIDTokenVerifier.googleCertificatesURL) {
        self.projectIDs = projectIDs
        self.certificatesURL = certificatesURL
    }

    package init() {}

    /// `FIREBASE_PROJECT_IDS`, `FIREBASE_CERTS_URL` and `SESAC_SOCKET_WAIT_SECONDS`.
    package static func load(from environment: EnvironmentVariables) throws -> FirebaseSettings {
        func value(_ name: String) -> String? { environment.value(name) }
        let appEnvironment = environment.appEnvironment
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
            guard parsed.scheme == "https" || appEnvironment != .production || Settings.isLoopback(host) else {
                throw SettingsError(variable: "FIREBASE_CERTS_URL", value: url, expected: "an https:// URL when APP_ENV=production (http only to this machine)")
            }
            firebase.certificatesURL = url
        }
        firebase.socketWaitSeconds = try environment.integer("SESAC_SOCKET_WAIT_SECONDS", default: 600, in: 1...86_400)

        return firebase
    }
}

extension Settings {
    package var firebase: FirebaseSettings {
        get { self[section: FirebaseSettings.self] }
        set { self[section: FirebaseSettings.self] = newValue }
    }
}
