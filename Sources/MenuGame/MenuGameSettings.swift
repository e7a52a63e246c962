import Foundation
package import Platform

/// How many group rooms may be opened, per network and per host device, every ten minutes
/// (`settings.menuGameRooms`). A school or an office behind one address opens its rooms through
/// one network budget: `MENU_GAME_ROOMS_PER_NETWORK` (60) is a class's groups and then some, and a
/// site whose users share bigger networks raises it. `MENU_GAME_ROOMS_PER_DEVICE` (10) bounds one
/// host device (an app with a token; token-less hosts only take the network's).
package struct MenuGameRoomSettings: SettingsSection, Equatable {
    package var perNetwork = 60
    package var perDevice = 10
    /// The window both budgets count in.
    static let window: TimeInterval = 600

    package init() {}

    package static func load(from environment: EnvironmentVariables) throws -> MenuGameRoomSettings {
        var settings = MenuGameRoomSettings()
        settings.perNetwork = try environment.integer("MENU_GAME_ROOMS_PER_NETWORK", default: 60, in: 1...1_000_000)
        settings.perDevice = try environment.integer("MENU_GAME_ROOMS_PER_DEVICE", default: 10, in: 1...1_000_000)
        return settings
    }
}

extension Settings {
    package var menuGameRooms: MenuGameRoomSettings {
        get { self[section: MenuGameRoomSettings.self] }
        set { self[section: MenuGameRoomSettings.self] = newValue }
    }
}
