import Vapor

/// Every route of the server. API routes live under `/api/v1`; compatibility routes for the
/// shipped iOS apps sit beside their feature; pages are the rest.
func routes(_ app: Application, openAPIDocument: String) throws {
    try app.register(collection: OperationsRoutes(openAPIDocument: openAPIDocument))

    let api = app.grouped(BearerAuthenticator())
    try api.register(collection: AccountsAPI())
    try api.register(collection: MenuGameAPI())
    try api.register(collection: MenuGamePreferencesAPI())
    try api.register(collection: BanchanAPI())
    try app.register(collection: MenuGameCompatRoutes())
    try app.register(collection: MenuImages())
    try app.register(collection: BanchanCompatRoutes())
    try app.register(collection: BanchanImages())

    // The session first: CSRF tokens are bound to it.
    let web = app.grouped(WebSessionAuthenticator(), CSRFMiddleware())
    try web.register(collection: HomePage())
    try web.register(collection: AccountPages())
    try web.register(collection: MenuGamePages())
    try web.register(collection: BurgerMapPages())
    try web.register(collection: BanchanPages())
    try web.register(collection: LicensesPage())
}
