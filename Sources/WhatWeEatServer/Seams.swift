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
    }
}
