import Banchan
import Foundation
import Messaging
import Payments
package import Platform

/// What the command line asks for, decided before anything reads settings or opens a database:
/// `--version` and `--help` answer at once, and a command or flag nobody knows is a usage error
/// (exit 2) rather than a start that migrates whatever database the environment names.
package enum Invocation: Equatable {
    case version
    case help
    /// A command to run (`serve` when none was named).
    case run
    case usageError(String)

    /// The commands the executable takes (Vapor's `routes` included).
    package static let commands = ["serve", "migrate", "migrate-to-postgres", "seed", "user", "mail", "sms", "backup", "restore", "routes",
                                   "check-settings"]
    /// Commands that act on a site and must not make one where there is none (`serve`, `migrate`
    /// and `seed` make one; `restore` fills a new folder).
    package static let needingASite: Set<String> = ["user", "mail", "sms", "migrate-to-postgres", "backup"]
    /// Commands that create nothing, not even `DATA_DIR` or its secret: those needing a site, and
    /// the settings check.
    package static var makingNothing: Set<String> { needingASite.union(["check-settings"]) }
    /// Serve's flags, each with a value: what may also come first, without `serve`.
    static let serveFlags: Set<String> = ["--hostname", "-H", "--port", "-p", "--bind", "-b", "--unix-socket"]

    package static let usage = """
        usage: whatweeat [serve [--hostname H] [--port P] [--bind H:P] [--unix-socket PATH]]
               whatweeat migrate [--yes] [--revert]
               whatweeat seed [--demo] [--synthetic …]
               whatweeat user create|reset-password|list|promote|demote|suspend|unsuspend …
               whatweeat mail test --to ADDRESS | sms test --to NUMBER
               whatweeat backup FILE | restore FILE | migrate-to-postgres --to postgres://…
               whatweeat check-settings | routes | --version | --help
        Settings come from the environment (README.md, "Configuration").
        """

    /// `arguments` without the program's name.
    package static func parse(_ arguments: [String]) -> Invocation {
        // Vapor's own `--env`/`-e` may stand anywhere (Environment.detect takes it out).
        var rest: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--env" || argument == "-e" {
                index += 2
                continue
            }
            rest.append(argument)
            index += 1
        }
        guard let first = rest.first else { return .run }
        switch first {
        case "--version", "-V", "version": return .version
        case "--help", "-h", "help": return .help
        case "serve": return serveFlagsProblem(Array(rest.dropFirst())).map(Invocation.usageError) ?? .run
        case _ where first.hasPrefix("-"): return serveFlagsProblem(rest).map(Invocation.usageError) ?? .run
        case _ where commands.contains(first): return .run
        default: return .usageError("unknown command \(first)")
        }
    }

    /// Why these are not serve's flags, each with its value; nil when they are.
    private static func serveFlagsProblem(_ flags: [String]) -> String? {
        var index = flags.startIndex
        while index < flags.endIndex {
            let flag = flags[index]
            let name = flag.split(separator: "=", maxSplits: 1).first.map(String.init) ?? flag
            guard serveFlags.contains(name) else { return "unknown option \(flag)" }
            if name == flag {
                guard index + 1 < flags.endIndex, !flags[index + 1].hasPrefix("-") else { return "\(flag) needs a value" }
                index += 2
            } else {
                index += 1
            }
        }
        return nil
    }

    /// Why this SQLite site cannot be acted on: the command needs a site and `database` is not
    /// there. Asked before anything opens the database (which would make the file).
    package static func missingSite(_ arguments: [String], settings: Settings) -> String? {
        guard let command = arguments.first, needingASite.contains(command), case .sqlite(let path) = settings.database,
              !FileManager.default.fileExists(atPath: path) else { return nil }
        return "no WhatWeEat data in \((settings.dataDirectory as NSString).standardizingPath); set DATA_DIR (or DATABASE_URL) as the server has it, or start the server once there"
    }

    /// What `check-settings` prints: that the environment passed, and what it decided (no secret).
    package static func settingsSummary(_ settings: Settings) -> String {
        let mail = settings[section: MailSettings.self].delivery
        return """
            Settings are valid for \(settings.appEnvironment == .production ? "production" : "development") (whatweeat \(AppVersion.current)).
              database: \(settings.database.summary)
              public URL: \(settings.publicURL)\(settings.instanceName.map { "\n  instance: \($0)" } ?? "")
              mail: \(mail)
              shop payments: \(paymentsSummary(settings[section: ShopSettings.self].gateway))
              scheduled backups: \(settings[section: BackupSettings.self].directory.map { "\($0), every \(Int(settings[section: BackupSettings.self].every)) s, \(settings[section: BackupSettings.self].keep) kept" } ?? "off")
            """
    }

    private static func paymentsSummary(_ gateway: PaymentGatewaySetting) -> String {
        switch gateway {
        case .test: return "test payments (development only)"
        case .portOne: return "PortOne"
        case .none: return "none (orders closed)"
        }
    }

    /// What `--version` prints.
    package static var versionLine: String { "whatweeat \(AppVersion.current) (\(AppVersion.build))" }
}
