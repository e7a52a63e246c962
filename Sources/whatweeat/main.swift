import Foundation
import NIOCore
import NIOPosix
import Platform
import Site
import Vapor
import WhatWeEatServer
#if canImport(Glibc)
import Glibc
#endif

// Everything this process creates — the data folder, the database and its journal, uploads,
// backups — is its user's alone: the database holds password hashes, chats and phone numbers.
umask(0o077)

// Swift concurrency's tasks run on NIO's event loops, not on a pool of their own: a request's
// every `await` on the database otherwise crossed between the two pools twice (half the CPU time
// of a page of a dozen statements went to the kernel switching threads). Before anything async.
let onEventLoops = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

/// `whatweeat [serve | migrate | seed | user … | backup FILE | restore FILE | check-settings | --version]`; no
/// argument means serve (`Invocation.usage`).
/// Configuration comes from the environment only (see README.md).
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("whatweeat: \(message)\n".utf8))
    exit(1)
}

// The command line first: `--version`, `--help` and mistakes answer before any setting is read or
// any database is opened.
switch Invocation.parse(Array(CommandLine.arguments.dropFirst())) {
case .version:
    print(Invocation.versionLine)
    exit(0)
case .help:
    print(Invocation.usage)
    exit(0)
case .usageError(let problem):
    FileHandle.standardError.write(Data("whatweeat: \(problem)\n\(Invocation.usage)\n".utf8))
    exit(2)
case .run:
    break
}

let settings: Settings
do {
    // A command on an existing site run in the wrong folder leaves nothing behind there.
    let makesASite = CommandLine.arguments.dropFirst().first.map { !Invocation.makingNothing.contains($0) } ?? true
    settings = try Settings.load(from: ProcessInfo.processInfo.environment, makingData: makesASite)
} catch {
    fail("\(error)")
}

// `check-settings`: the environment was read and passed every check (a production server's too).
if CommandLine.arguments.dropFirst().first == "check-settings" {
    print(Invocation.settingsSummary(settings))
    exit(0)
}

// `user`, `mail` and `sms` act on a site: in a folder without one they make none.
if let missing = Invocation.missingSite(Array(CommandLine.arguments.dropFirst()), settings: settings) { fail(missing) }

// `backup FILE` and `restore FILE` work on the database file alone, before any pool opens it.
do {
    if try await DatabaseFileCommands.runIfAsked(Array(CommandLine.arguments.dropFirst()), settings: settings) { exit(0) }
} catch {
    fail("\(error)")
}

LoggingSystem.bootstrap { label in OperatorLogs.handler(label: label, settings: settings) }

var databaseLock: DatabaseLock?
let app: Application
do {
    app = try await Application.make(try Environment.detect())
} catch {
    fail("\(error)")
}

do {
    try await configure(app, settings: settings)
    registerCommands(app)
    // `serve` is also what runs with no command or with only serve's flags (`--port …`).
    let command = CommandLine.arguments.dropFirst().first
    if command == nil || command == "serve" || command?.hasPrefix("-") == true {
        // Held while serving, so `whatweeat restore` refuses to replace the database under us.
        if case .sqlite(let path) = settings.database { databaseLock = DatabaseLock(database: path, mode: .shared) }
        do {
            try await prepareDatabase(app)
        } catch {
            try? await app.asyncShutdown()
            fail("cannot prepare the database: \(StartFailure.describe(error))")
        }
        app.logger.info("WhatWeEat on \(settings.publicURL) (\(settings.database.summary))")
        if !onEventLoops { app.logger.notice("Swift concurrency keeps its own pool: NIO could not take it over (slower pages)") }
    }
    try await app.execute()
    try await app.asyncShutdown()
    databaseLock?.release()
} catch {
    try? await app.asyncShutdown()
    fail("\(String(describing: error).prefix(300))")
}
