package import Fluent
public import Platform
import Site
public import Vapor

/// Sets up the server: every feature (`Features.all`) on the site (`configureSite`), the seams
/// between them, and the backups it makes of itself.
public func configure(_ app: Application, settings: Settings) async throws {
    try await configureSite(app, settings: settings, features: Features.all) { app in
        Seams.connect(app)
        // BACKUP_DIR: the site backs itself up, one instance at a time.
        let backups = settings[section: BackupSettings.self]
        if backups.directory != nil { app.lifecycle.use(ScheduledBackups.job(backups)) }
    }
}

extension SafeMigrations {
    /// Every migration this binary knows, in the order they run.
    package static var all: [any Migration] { all(for: Features.all) }
}
