import BurgerMap
import Fluent
import Mates
import MenuGame
import Platform
package import Vapor

/// The declared seams between features: where one feature uses another, through a protocol or
/// closure the caller owns. The server connects them here, after every feature is configured;
/// features never import each other (Package.swift).
package enum Seams {
    package static func connect(_ app: Application) {
        // A matched pair of mates opens a menu game group together.
        app.groupGameOpener = GroupGameOpener(
            open: { req, hostToken, hostUserID in
                try await req.createMenuGroup(hostToken: hostToken, hostUserID: hostUserID).pin
            },
            link: { PlayPath.group($0) }
        )
        // A burger menu's places near the person start with the burger map's own.
        app.ownPlacesNearby = OwnPlacesNearby { app, menu, point in
            guard NearbyRules.isBurger(ko: menu.name.ko, en: menu.name.en, slug: menu.id) else { return [] }
            return try await BurgerMapService(database: app.db, application: app)
                .nearest(to: point, within: Double(NearbyRules.searchRadiusMeters), limit: NearbyRules.listSize).map { found in
                    NearbyPlace(name: found.place.name, distanceMeters: Int(found.meters.rounded()), address: found.place.address, phone: found.place.phone,
                                url: app.settings.publicURL + BurgerMapService.placePath(found.place.id), lat: found.place.lat, lon: found.place.lon,
                                source: "burger_map")
                }
        }
    }
}
