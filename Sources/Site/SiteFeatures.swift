import Accounts
import Media
import Notifications
package import Platform
import Vapor

/// Which features a site runs. The server runs all of them (`Features.all`); a feature's tests run
/// that feature on its foundations and nothing else, so they build and boot only what they test.
package enum SiteFeatures {
    /// What every site runs: accounts (the site's sign-in, its sessions and the console's people)
    /// and notifications (the inbox badge on every page). Every service feature builds on both.
    package static let foundations: [any Feature.Type] = [AccountsFeature.self, NotificationsFeature.self]

    /// `features` after the foundations, each once, in the order given.
    package static func including(_ features: [any Feature.Type]) -> [any Feature.Type] {
        var seen = Set<ObjectIdentifier>()
        return (foundations + features).filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
}

extension Application {
    private struct SiteFeaturesKey: StorageKey { typealias Value = [any Feature.Type] }

    /// The features `configureSite` was given, foundations first: their migrations, seeders, home
    /// cards and routes are the site's.
    package var siteFeatures: [any Feature.Type] {
        get { configured(SiteFeaturesKey.self) }
        set { storage[SiteFeaturesKey.self] = newValue }
    }
}

extension Settings {
    /// Reads and validates the environment for a site of `features`: the platform's values, the
    /// uploads' storage, each feature's section, then `more` (the server's backups).
    package static func load(from environment: [String: String], features: [any Feature.Type], more: [any SettingsSection.Type] = [],
                             makingData: Bool = true) throws -> Settings {
        try load(from: environment, sections: [MediaSettings.self] + SiteFeatures.including(features).flatMap { $0.settingsSections } + more,
                 makingData: makingData)
    }
}
