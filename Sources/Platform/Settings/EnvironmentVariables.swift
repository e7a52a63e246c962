import Foundation
import NIOConcurrencyHelpers

/// The process environment as settings read it: trimmed values, range-checked numbers, and the
/// kind of environment (some values are refused in production). Each feature's `SettingsSection`
/// reads its own variables through this.
package struct EnvironmentVariables: Sendable {
    package let values: [String: String]
    package let appEnvironment: Settings.AppEnvironment
    /// Every name asked for, set or not, by this reader and its copies for another environment:
    /// what `nearMisses` compares the environment's other names with.
    private let ledger: NIOLockedValueBox<Set<String>>

    package init(values: [String: String], appEnvironment: Settings.AppEnvironment) {
        self.init(values: values, appEnvironment: appEnvironment, ledger: NIOLockedValueBox([]))
    }

    private init(values: [String: String], appEnvironment: Settings.AppEnvironment, ledger: NIOLockedValueBox<Set<String>>) {
        self.values = values
        self.appEnvironment = appEnvironment
        self.ledger = ledger
    }

    /// The same variables read as `appEnvironment` (`APP_ENV` is read first), sharing the ledger.
    package func reading(as appEnvironment: Settings.AppEnvironment) -> EnvironmentVariables {
        EnvironmentVariables(values: values, appEnvironment: appEnvironment, ledger: ledger)
    }

    /// The names asked for so far.
    package var namesRead: Set<String> { ledger.withLockedValue { $0 } }

    /// The variable's value without surrounding spaces; nil when unset or blank.
    package func value(_ name: String) -> String? {
        ledger.withLockedValue { _ = $0.insert(name) }
        guard let raw = values[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        return raw
    }

    package func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let raw = value(name) else { return fallback }
        guard let number = Int(raw), range.contains(number) else {
            throw SettingsError(variable: name, value: raw, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A URL as an error message may show it: any password replaced by `***`. A secret that makes
    /// the URL parse otherwise than it was meant (a `/`, `#`, `?` or `%` in a generated key: the
    /// 2026-12-05 probe's finding 8) never shows: then only the scheme and the host after the last
    /// `@` are shown.
    package static func redactPassword(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url.contains("@") ? "(hidden)" : url }
        let rest = url[schemeEnd.upperBound...]
        guard let lastAt = rest.lastIndex(of: "@") else { return url }
        // Parsed as meant: the user and password read back are exactly what stands before the host.
        if var components = URLComponents(string: url), let user = components.percentEncodedUser,
           let password = components.percentEncodedPassword, rest.hasPrefix(user + ":" + password + "@"),
           !password.isEmpty, rest.index(rest.startIndex, offsetBy: user.count + password.count + 1) == lastAt {
            components.password = "***"
            if let shown = components.string { return shown }
        }
        let host = rest[rest.index(after: lastAt)...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return url[..<schemeEnd.upperBound] + "***@" + host
    }
}
