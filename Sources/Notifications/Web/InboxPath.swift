package import Platform

/// The inbox pages' paths: the route table (`NotificationsPages.boot`) registers them and the pages
/// link to them; the frame's bell links to `SitePath.inbox`, the same page.
package enum InboxPath {
    package static let inbox = SitePath.inbox
    static let markAllRead: PagePath = "/notifications/read"
    package static let live: PagePath = "/notifications/live"
    /// Which kinds are pushed, and this device's pushes on or off.
    static let settings: PagePath = "/notifications/settings"
}
