package import Foundation
package import Platform
package import Vapor

/// What the menu game's services use beside their database, made once by
/// `MenuGameFeature.configure` and kept under one key (issue 59): the clock, the event bus, the
/// log, the catalog in force, its memories (the rooms' states, the menus each device was shown,
/// saved dislikes, the PINs each network knows) and the address it links to. Every poll makes a
/// service from it in one look-up.
///
/// `now` is the game's one source of time: a room's last activity, its expiry, the state a poll
/// is answered from and the shows a device is kept from seeing again all read it; a test moves it
/// (`app.withClock(\.menuGameEnvironment, ahead:)`) instead of waiting or passing times in.
package struct MenuGameEnvironment: FeatureEnvironment {
    package var now: @Sendable () -> Date
    package let events: any EventBus
    package let logger: Logger
    let catalog: MenuCatalog
    let groupStates: MenuGroupStateCache
    /// Closed groups with their result, by PIN (`FrozenGroups`).
    let frozenGroups: FrozenGroups
    let shownMenus: ShownMenus
    let savedDislikes: PersonMemory<Set<Flavor>?>
    let pinsSeen: PINsSeenOnNetworks
    let publicURL: String
    /// Restaurants near a menu: Kakao Local (when set up), its kept answers and look-up budget.
    let nearby: NearbyRestaurants
    /// Moves after every note left, here and on every instance: the administrators' inbox of
    /// notes is kept until it moves.
    let feedback = ChangeVersion(topic: "menu_game.feedback")

    init(now: @escaping Now, events: any EventBus, logger: Logger, publicURL: String, nearby: NearbyRestaurants) {
        self.now = now
        self.events = events
        self.logger = logger
        self.catalog = MenuCatalog()
        self.groupStates = MenuGroupStateCache()
        self.frozenGroups = FrozenGroups()
        self.shownMenus = ShownMenus()
        self.savedDislikes = PersonMemory(topic: "menu_game.saved-dislikes", lifetime: 300)
        self.pinsSeen = PINsSeenOnNetworks()
        self.publicURL = publicURL
        self.nearby = nearby
    }
}

extension Application {
    private struct MenuGameEnvironmentKey: StorageKey { typealias Value = MenuGameEnvironment }

    package var menuGameEnvironment: MenuGameEnvironment {
        get { configured(MenuGameEnvironmentKey.self) }
        set { storage[MenuGameEnvironmentKey.self] = newValue }
    }

    /// The catalog in force (`menuGameEnvironment.catalog`).
    package var menuCatalog: MenuCatalog { menuGameEnvironment.catalog }
    /// The rooms' states as polls last read them (`menuGameEnvironment.groupStates`).
    var menuGroupStates: MenuGroupStateCache { menuGameEnvironment.groupStates }
    /// The menus each device was shown lately (`menuGameEnvironment.shownMenus`).
    var shownMenus: ShownMenus { menuGameEnvironment.shownMenus }
    /// Signed-in players' saved dislikes, which every menu-game page reads (`menuGameEnvironment.savedDislikes`).
    var savedDislikesMemory: PersonMemory<Set<Flavor>?> { menuGameEnvironment.savedDislikes }
    /// The PINs each network created or found lately (`menuGameEnvironment.pinsSeen`).
    var pinsSeenOnNetworks: PINsSeenOnNetworks { menuGameEnvironment.pinsSeen }
}
