import Accounts
import Media
import Notifications
import Platform
import Vapor

/// Every route of the server: the platform's own (operations, the home page, licenses), then each
/// feature's on the three groups it may use. API routes live under `/api/v1`; compatibility
/// routes for the shipped iOS apps sit beside their feature; pages are the rest.
func routes(_ app: Application, features: [any Feature.Type], openAPIDocument: String) throws {
    try app.register(collection: OperationsRoutes(openAPIDocument: openAPIDocument))
    try app.register(collection: UploadRoutes())
    try app.register(collection: VendorFiles())

    // The session first: CSRF tokens are bound to it.
    let web = app.grouped(WebSessionAuthenticator(), CSRFMiddleware(), BrowserDeviceMiddleware(), InboxBadgeMiddleware())
    try HomePage.register(features.compactMap { $0.homeCard }, on: web, app: app)
    try web.register(collection: LicensesPage())
    try app.register(collection: InstallableApp())

    let groups = FeatureRoutes(api: app.grouped(BearerAuthenticator()), open: app, web: web)
    for feature in features {
        try feature.routes(groups)
    }
}
