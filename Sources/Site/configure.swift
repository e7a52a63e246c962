import Accounts
import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Metrics
import Media
import Notifications
package import Platform
import SQLKit
package import Vapor

/// Sets up a site that runs `features`: database, migrations, services, middleware and routes.
/// The server runs every feature (`WhatWeEatServer.configure`); a feature's tests run the
/// feature on its foundations and nothing else (`SiteFeatures.including`). `afterFeatures` runs
/// once every feature is configured, before the middleware: where the server connects the seams
/// between features. Does not migrate: `prepareDatabase` does, on `serve` and in tests.
package func configureSite(
    _ app: Application, settings: Settings, features: [any Feature.Type],
    afterFeatures: (Application) throws -> Void = { _ in }
) async throws {
    // First: a counter or gauge made before the registry is installed counts nowhere, for good
    // (the memories made below make theirs when they are built).
    AppMetrics.start()
    let features = SiteFeatures.including(features)
    app.siteFeatures = features
    app.settings = settings
    app.logger.logLevel = settings.logLevel
    app.http.server.configuration.hostname = settings.host
    app.http.server.configuration.port = settings.port
    app.routes.defaultMaxBodySize = "1mb"
    ContentConfiguration.global.use(encoder: AppJSON.encoder(), for: .json)
    ContentConfiguration.global.use(decoder: GuardedFormDataDecoder(), for: .formData)
    app.routes.caseInsensitive = false
    ConnectionLimits.apply(to: app, limits: settings.limits)

    switch settings.database {
    case .sqlite(let path):
        app.databases.use(.sqlite(.file(path), sqlLogLevel: .debug), as: .sqlite)
    case .postgres(let url):
        var configuration = try SQLPostgresConfiguration(url: url)
        configuration.searchPath = nil
        configuration.coreConfiguration.options.additionalStartupParameters.append(("application_name", settings.databaseApplicationName))
        // DATABASE_POOL_SIZE is per instance; the pool keeps one per event loop, so it is spread over them.
        let loops = max(1, System.coreCount)
        let perLoop = settings.databasePoolSize.map { max(1, ($0 + loops - 1) / loops) } ?? 8
        Gauge(label: "whatweeat_db_pool_connections_max").record(Double(perLoop * loops))
        app.databases.use(.postgres(configuration: configuration, maxConnectionsPerEventLoop: perLoop, sqlLogLevel: .debug), as: .psql)
    }

    app.directory = DirectoryConfiguration(workingDirectory: try ResourceRoot.locate(explicit: settings.resourcesDirectory))
    app.translator = try Translator.load(from: app.directory.resourcesDirectory + "translations")
    app.scriptTexts = ScriptTexts()
    app.pageFragments = PageFragments()
    app.keys = ServerKeys(secret: settings.jwtSecret)
    app.accessTokens = await AccessTokens.make(key: app.keys.accessTokens, lifetime: settings.accessTokenTTL)
    switch settings.database {
    case .sqlite:
        app.events = InProcessEventBus()
    case .postgres(let url):
        // Several processes may share this database: live events go through LISTEN/NOTIFY.
        let bus = try await PostgresEventBus.start(url: url, logger: app.logger)
        app.events = bus
        app.lifecycle.use(PostgresEventBusLifecycle(bus: bus))
        // ...and per-address budgets are counted in the database, once for all instances.
        app.sharedBudgets = SharedBudgets(application: app)
        app.lifecycle.use(SharedBudgets.pruneJob())
    }
    // Work that must outlive its request and this process (chat notices, push deliveries): every
    // feature hands it to the one durable queue, which every instance runs.
    app.workQueue = WorkQueue(clock: app.siteClock)
    app.lifecycle.use(app.workQueue)
    // Sign-out, a refresh token's reuse, withdrawal…: the live sockets of that session close, on every instance.
    app.closeSocketsWhenSessionsEnd()
    // Requests are counted by `RequestMetricsMiddleware`, with the route pattern as `route`; Vapor's
    // own request metrics would count them twice under other label names.
    app.http.server.configuration.reportMetrics = false
    app.mapLibrary = MapLibrary(settings: settings.map)
    if settings.appEnvironment == .production, settings.map.tileURL == Settings.MapSettings().tileURL {
        app.logger.warning("MAP_TILE_URL is unset: maps load tiles from OpenStreetMap's own servers, whose usage policy rules out a site's heavy use; set a tile source of your own (README.md, MAP_TILE_URL)")
    }
    try app.useFileStorage(settings, directory: uploadsDirectory(settings))

    // Every table: the refunds owed at the payment provider (a table of the Payments module, which
    // no feature owns alone), then each feature's, each migration in a transaction of its own.
    app.migrations.add(SafeMigrations.registered(for: features))
    // Each feature's services and background jobs, in the order given.
    for feature in features {
        try await feature.configure(app, settings: settings)
    }
    try afterFeatures(app)

    let openAPIPath = app.directory.workingDirectory + "openapi.yaml"  // the resource root
    let openAPIDocument = (try? String(contentsOfFile: openAPIPath, encoding: .utf8)) ?? ""

    // Outermost first: metrics see the final status, errors are rendered before headers are added.
    app.middleware = Middlewares()
    app.middleware.use(RequestLogMiddleware(accessLog: settings.accessLog))
    app.middleware.use(RequestMetricsMiddleware())
    if let name = settings.instanceName { app.middleware.use(InstanceHeaderMiddleware(name: name)) }
    app.middleware.use(SecurityHeadersMiddleware(settings: settings, map: app.mapLibrary))
    app.middleware.use(AppErrorMiddleware(renderPage: { request, status, message in
        Layout.errorPage(request, status: status, message: message)
    }))
    // DNS rebinding: in production, a Host we do not serve is refused before anything reads the request.
    if let served = settings.servedHosts { app.middleware.use(ServedHostsMiddleware(served: served)) }
    app.middleware.use(RequestTargetGuard())
    app.middleware.use(PublicFilesMiddleware(publicDirectory: app.directory.publicDirectory))

    try routes(app, features: features, openAPIDocument: openAPIDocument)
    // Innermost, around the router alone, once every route is known.
    app.middleware.use(MethodNotAllowedMiddleware(routes: app.routes.all))
    app.lifecycle.use(AppMetrics.databaseProbe(settings: settings))
    // Last registered, first to run at shutdown: sockets and requests in flight end before the rest.
    app.lifecycle.use(GracefulShutdown())
}

/// Creates or upgrades the schema and loads the catalogs; safe to run on every start.
package func prepareDatabase(_ app: Application) async throws {
    if case .sqlite = app.settings.database {
        // WAL lets readers run beside the single writer; the mode is stored in the file.
        try await app.db.sql.raw("PRAGMA journal_mode=WAL").run()
        // Writers that meet each other wait their turn (up to a busy timeout), then answer 503.
        try await app.waitForTheSQLiteWriteLock()
    }
    // One process at a time (two instances started together would race), and never on a database
    // a newer version migrated (`SafeMigrations`).
    try await SafeMigrations.holdingTheLock(app) {
        try await SafeMigrations.refuseNewerDatabase(app)
        try await app.autoMigrate()
        try await app.carryOverDiskUploads(from: uploadsDirectory(app.settings))
        try await Seeders.run(on: app)
    }
}

/// `DATA_DIR/uploads`: the files when they are kept on disk, and what an earlier version left there.
package func uploadsDirectory(_ settings: Settings) -> String {
    (settings.dataDirectory as NSString).appendingPathComponent("uploads")
}
