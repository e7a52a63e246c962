import Accounts
import Banchan
import BanchanApp
import BurgerMap
import LookForRealBurgerApp
import Mates
import Media
import MenuGame
import MenuGameApp
import Notifications
public import Platform
import SesacStudyApp
import Site

/// Every feature of the app and every shipped app's layer, one line each (and one target in
/// Package.swift). The order is the order of settings, migrations and seeders (a feature's tables
/// may refer to those of the features above it); a layer follows its feature. Removing a layer is
/// deleting its line and its target.
package enum Features {
    package static let all: [any Feature.Type] = [
        AccountsFeature.self,
        NotificationsFeature.self,
        MenuGameFeature.self,
        MenuGameAppLayer.self,
        BanchanFeature.self,
        BanchanAppLayer.self,
        BurgerMapFeature.self,
        LookForRealBurgerAppLayer.self,
        MatesFeature.self,
        SesacStudyAppLayer.self,
    ]
}

extension Settings {
    /// Reads and validates the environment: the platform's values, then each feature's section.
    /// `makingData: false` for a command that acts on an existing site (`Invocation.needingASite`).
    public static func load(from environment: [String: String], makingData: Bool = true) throws -> Settings {
        try load(from: environment, features: Features.all, more: [BackupSettings.self], makingData: makingData)
    }
}
