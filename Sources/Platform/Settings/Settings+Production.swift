import Foundation
import NIOCore

/// What a production server (`APP_ENV=production`) refuses to start with, beyond values that are
/// wrong anywhere: settings a development server may leave to their defaults but a site with
/// real people must decide (`PUBLIC_URL`, a shared `JWT_SECRET` on PostgreSQL, each feature's
/// providers through `SettingsSection.productionProblem`), provider URLs that would carry codes,
/// keys or payments in clear across a network, and a variable whose name is one letter away from
/// one we read (a `DATABSE_URL` would otherwise start an empty SQLite site). Each refusal is one
/// line naming the variable and what to do.
extension Settings {
    /// The first reason this production server must not start; nil when none (or not production).
    func productionProblem(variables: EnvironmentVariables, sections: [any SettingsSection.Type]) -> SettingsError? {
        guard appEnvironment == .production else { return nil }
        if let misspelt = variables.nearMisses().first {
            return SettingsError(variable: misspelt.unknown, value: "(set)",
                                 expected: "a variable WhatWeEat reads; did you mean \(misspelt.known)? (APP_ENV=production refuses names it does not know that look like its own)")
        }
        guard variables.value("PUBLIC_URL") != nil else {
            return SettingsError(variable: "PUBLIC_URL", value: "(unset)",
                                 expected: "the https:// address people open, when APP_ENV=production (links in mail, secure cookies and the host check follow it)")
        }
        if let problem = Self.cleartextProblem("PUBLIC_URL", url: publicURL) { return problem }
        if case .postgres = database, variables.value("JWT_SECRET") == nil {
            return SettingsError(variable: "JWT_SECRET", value: "(unset)",
                                 expected: "one secret of at least 32 bytes shared by every instance, when APP_ENV=production on PostgreSQL (each instance would make its own and sign people out at random; `openssl rand -base64 48` makes one)")
        }
        for section in sections {
            if let problem = productionProblem(of: section) { return problem }
        }
        return nil
    }

    private func productionProblem<Section: SettingsSection>(of section: Section.Type) -> SettingsError? {
        self[section: Section.self].productionProblem(in: self)
    }

    /// A URL a production server must not use: `http://` (or another scheme without TLS, named by
    /// `cleartextSchemes`) to a host other than this machine. nil when it is fine.
    package static func cleartextProblem(_ variable: String, url: String, cleartextSchemes: Set<String> = ["http"]) -> SettingsError? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              cleartextSchemes.contains(scheme), let host = components.host, !isLoopback(host)
        else { return nil }
        return SettingsError(variable: variable, value: EnvironmentVariables.redactPassword(url),
                             expected: "a TLS URL (https:// or the provider's TLS scheme) when APP_ENV=production: \(host) is not this machine, and what goes there would cross the network in clear")
    }

    /// `localhost`, `127.x.x.x` or `::1`: a provider on this machine (a local relay, a stand-in).
    package static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare.hasSuffix(".localhost") || bare == "::1" { return true }
        return bare.hasPrefix("127.") && (try? SocketAddress(ipAddress: bare, port: 0)) != nil
    }
}

extension SettingsSection {
    package func productionProblem(in settings: Settings) -> SettingsError? { nil }
}

extension EnvironmentVariables {
    /// Variables set in the environment that WhatWeEat does not read but whose names are one edit
    /// from a name it read (two for names longer than eight characters): typing mistakes, with
    /// the name meant. Shell and system variables are never among them.
    package func nearMisses() -> [(unknown: String, known: String)] {
        let known = namesRead
        return values.keys.sorted().compactMap { name in
            guard !known.contains(name), !Self.systemNames.contains(name),
                  name.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }) else { return nil }
            let allowed = name.count > 8 ? 2 : 1
            guard let meant = known.sorted().first(where: { Self.editDistance($0, name, atMost: allowed) <= allowed }) else { return nil }
            return (name, meant)
        }
    }

    /// Names a process commonly has that are not ours.
    static let systemNames: Set<String> = [
        "HOME", "HOSTNAME", "HOSTTYPE", "LANG", "LANGUAGE", "LOGNAME", "MAIL", "OLDPWD", "PATH", "PWD", "SHELL", "SHLVL",
        "TERM", "TMPDIR", "TZ", "USER", "INVOCATION_ID", "JOURNAL_STREAM", "NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID",
    ]

    /// Levenshtein distance, given up (returning `limit + 1`) once it must exceed `limit`.
    static func editDistance(_ a: String, _ b: String, atMost limit: Int) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard abs(a.count - b.count) <= limit else { return limit + 1 }
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            if current.min()! > limit { return limit + 1 }
            previous = current
        }
        return previous[b.count]
    }
}
