import Foundation
import Platform
package import Vapor

/// What mates needs of the menu game: a group game opened for a matched pair, and the page it is
/// played on. Mates owns this seam and names no other feature; the server connects the menu game to
/// it (`WhatWeEatServer/Seams.swift`). Without it, starting a game together is 404.
package struct GroupGameOpener: Sendable {
    /// Opens a group hosted by the device `hostToken` of the account `hostUserID`; returns its PIN.
    package let open: @Sendable (_ req: Request, _ hostToken: String, _ hostUserID: UUID) async throws -> String
    /// The page of the group with this PIN.
    package let link: @Sendable (_ pin: String) -> String

    package init(open: @escaping @Sendable (Request, String, UUID) async throws -> String,
                 link: @escaping @Sendable (String) -> String) {
        self.open = open
        self.link = link
    }
}

extension Application {
    private struct GroupGameOpenerKey: StorageKey { typealias Value = GroupGameOpener }

    package var groupGameOpener: GroupGameOpener? {
        get { storage[GroupGameOpenerKey.self] }
        set { storage[GroupGameOpenerKey.self] = newValue }
    }
}
