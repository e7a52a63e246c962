import Foundation

/// The process environment as settings read it: trimmed values, range-checked numbers, and the
/// kind of environment (some values are refused in production). Each feature's `SettingsSection`
/// reads its own variables through this.
package struct EnvironmentVariables: Sendable {
    package let values: [String: String]
    package let appEnvironment: Settings.AppEnvironment

    package init(values: [String: String], appEnvironment: Settings.AppEnvironment) {
        self.values = values
        self.appEnvironment = appEnvironment
    }

    /// The variable's value without surrounding spaces; nil when unset or blank.
    package func value(_ name: String) -> String? {
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

    /// A URL as an error message may show it: any password replaced by `***`.
    package static func redactPassword(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "(unparseable)"
    }
}
