import Accounts
import Notifications
import Platform
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
