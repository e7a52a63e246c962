/// The pages the shared frame links to from every page (the header's sign-in links, my page, the
/// inbox bell). Their features' path enums (`AccountPath`, `InboxPath`) are these same values, so
/// the platform can link to them without knowing those features.
package enum SitePath {
    package static let logIn: PagePath = "/login"
    package static let signUp: PagePath = "/signup"
    package static let me: PagePath = "/me"
    package static let inbox: PagePath = "/notifications"
}
