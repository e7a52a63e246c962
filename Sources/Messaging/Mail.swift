package import Logging
package import Platform
import Vapor

/// Sends one plain-text message (`SMTPMailer`, or the log of a development server).
package protocol MailSender: Sendable {
    func send(_ message: MailMessage) async throws
}

extension SMTPMailer: MailSender {}

/// Where mail goes: by SMTP when `SMTP_URL` is set; else into the server log on a development
/// server (where its operator reads codes and links), and nowhere on a production one — a feature
/// that needs mail refuses there (503 `mail_unavailable`) rather than pretend it sent something.
package enum MailDelivery: String, Sendable {
    case smtp, log, none
}

/// `SMTP_URL`: `smtp://[user:password@]host[:port][?from=address]` or `smtps://…`;
/// `MAIL_DELIVERY=none`: this site sends no mail at all (no e-mail codes, no reset links).
package struct MailSettings: SettingsSection, Equatable {
    package var smtpURL: String?
    /// Whether this is a production server (no mail without `SMTP_URL`).
    package var production = false
    /// `MAIL_DELIVERY=none`: the operator's decision to send no mail, which a production server
    /// without `SMTP_URL` needs to start.
    package var sendsNone = false

    package var delivery: MailDelivery {
        if sendsNone { return .none }
        return smtpURL != nil ? .smtp : (production ? .none : .log)
    }

    package init() {}

    package static func load(from environment: EnvironmentVariables) throws -> MailSettings {
        var mail = MailSettings()
        mail.production = environment.appEnvironment == .production
        if let smtp = environment.value("SMTP_URL") {
            do { _ = try SMTPConfiguration(url: smtp) } catch {
                throw SettingsError(variable: "SMTP_URL", value: EnvironmentVariables.redactPassword(smtp),
                                    expected: "smtp://[user:password@]host[:port][?from=address] or smtps://… (\(error))")
            }
            mail.smtpURL = smtp
        }
        switch environment.value("MAIL_DELIVERY")?.lowercased() {
        case nil: break
        case "none": mail.sendsNone = true
        case "smtp" where mail.smtpURL != nil: break
        case "log" where !mail.production: break
        case let other?:
            throw SettingsError(variable: "MAIL_DELIVERY", value: other,
                                expected: "none (send no mail), or smtp with SMTP_URL set (log only on a development server, where it is the default)")
        }
        return mail
    }

    /// A production server sends mail over TLS, or has decided to send none: without a sender,
    /// people who forget a password have no way back and e-mail codes cannot be offered.
    package func productionProblem(in settings: Settings) -> SettingsError? {
        guard !sendsNone else { return nil }
        guard let smtpURL, let smtp = try? SMTPConfiguration(url: smtpURL) else {
            return SettingsError(variable: "SMTP_URL", value: "(unset)",
                                 expected: "a mail server for reset links and e-mail codes when APP_ENV=production, or MAIL_DELIVERY=none to send no mail at all")
        }
        guard smtp.security == .implicitTLS || smtp.security == .startTLSRequired || Settings.isLoopback(smtp.host) else {
            return SettingsError(variable: "SMTP_URL", value: EnvironmentVariables.redactPassword(smtpURL),
                                 expected: "smtps://… or ?starttls=required when APP_ENV=production: reset links and codes would cross the network in clear")
        }
        return nil
    }
}

extension Settings {
    package var mail: MailSettings {
        get { self[section: MailSettings.self] }
        set { self[section: MailSettings.self] = newValue }
    }
}

/// Writes each message to the server log: a development server's mail, read by its operator.
package struct LogMailSender: MailSender {
    package let logger: Logger

    package func send(_ message: MailMessage) async throws {
        logger.notice("mail to \(message.to): \(message.subject)\n\(message.text)", metadata: OperatorLogs.deliberate)
    }

    package init(logger: Logger) {
        self.logger = logger
    }
}

/// Refuses: a production server without `SMTP_URL`.
struct NoMailSender: MailSender {
    func send(_ message: MailMessage) async throws {
        throw AppError(.serviceUnavailable, "mail_unavailable")
    }
}

extension Application {
    private struct MailKey: StorageKey { typealias Value = any MailSender }
    private struct MailDeliveryKey: StorageKey { typealias Value = MailDelivery }

    /// The mail sender `configureMail` chose from `SMTP_URL`.
    package var mail: any MailSender {
        get { configured(MailKey.self) }
        set { storage[MailKey.self] = newValue }
    }

    /// How `mail` delivers: what `/readyz` reports and what features check before promising mail.
    package var mailDelivery: MailDelivery {
        get { storage[MailDeliveryKey.self] ?? .log }
        set { storage[MailDeliveryKey.self] = newValue }
    }

    /// Chooses `mail` from the settings (a test may have put its own sender there before).
    package func configureMail(_ settings: MailSettings) throws {
        mailDelivery = settings.delivery
        // "none" on a production server without SMTP_URL: it cannot send reset links or codes.
        readinessDetail("mail") { $0.mailDelivery.rawValue }
        guard storage[MailKey.self] == nil else { return }
        switch settings.delivery {
        case .smtp:
            mail = SMTPMailer(configuration: try SMTPConfiguration(url: settings.smtpURL ?? ""), eventLoopGroup: eventLoopGroup, clock: siteClock)
        case .log:
            mail = LogMailSender(logger: logger)
        case .none:
            mail = NoMailSender()
        }
    }
}
