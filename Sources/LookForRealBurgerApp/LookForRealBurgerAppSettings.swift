import Foundation
package import Platform

/// The LookForRealBurger app's settings: the `SesacKey` values it may send (`LSLP_API_KEYS`);
/// none turns its routes off (420). `settings.lookForRealBurgerApp`.
package struct LookForRealBurgerAppSettings: SettingsSection, Equatable {
    package var apiKeys: [String] = []

    package init() {}

    package static func load(from environment: EnvironmentVariables) throws -> LookForRealBurgerAppSettings {
        var settings = LookForRealBurgerAppSettings()
        func value(_ name: String) -> String? { environment.value(name) }
        for raw in (value("LSLP_API_KEYS") ?? "").split(separator: ",") {
            let key = raw.trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { continue }
            guard key.utf8.count <= 200, key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw SettingsError(variable: "LSLP_API_KEYS", value: "(\(key.utf8.count) bytes)", expected: "keys of printable characters without spaces, separated by commas")
            }
            if !settings.apiKeys.contains(key) { settings.apiKeys.append(key) }
        }
        return settings
    }
}

extension Settings {
    package var lookForRealBurgerApp: LookForRealBurgerAppSettings {
        get { self[section: LookForRealBurgerAppSettings.self] }
        set { self[section: LookForRealBurgerAppSettings.self] = newValue }
    }
}
