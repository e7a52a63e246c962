import Fluent
import Foundation
import Logging
import Metrics
import Platform
package import Vapor

/// Phone codes by text message through Solapi (`SMS_URL`). A refusal (an unregistered sender, no
/// balance, a number Solapi will not take) or no answer is `CodeSenderError.unavailable`: the code
/// is withdrawn and the person told to try again. A message Solapi accepted is followed until it
/// reaches the phone or fails (`SMSDeliveryChecks`), so the operator sees what carriers did.
package struct SMSCodeSender: CodeSender {
    let client: SolapiClient
    let application: Application

    /// Solapi through an HTTP client of its own (shut down with the app); the work queue follows
    /// what it sends (`SMSDeliveryChecks`, registered here).
    package init(_ configuration: SMSConfiguration, application: Application) {
        let http = SolapiClient.makeClient(on: application.eventLoopGroup)
        application.lifecycle.use(HTTPClientShutdown(client: http))
        client = SolapiClient(configuration: configuration, client: http)
        self.application = application
        SMSDeliveryChecks.register(in: application, client: client)
        AppMetrics.countersStartAtZero(["whatweeat_sms_sent_total", "whatweeat_sms_delivered_total", "whatweeat_sms_unconfirmed_total"])
        AppMetrics.countersStartAtZero(["whatweeat_sms_failed_total"], label: "stage", values: ["send", "carrier"])
    }

    package func send(_ code: OneTimeCode) async throws {
        guard code.channel == .phone else { throw CodeSenderError.unavailable("SMSCodeSender sends only to phones") }
        let sent: SentSMS
        do {
            sent = try await client.send(to: Self.nationalNumber(code.destination), text: code.text, now: application.siteClock())
        } catch {
            Counter(label: "whatweeat_sms_failed_total", dimensions: [("stage", "send")]).increment()
            await application.tally(.smsFailed)
            throw CodeSenderError.unavailable("\(error)")
        }
        Counter(label: "whatweeat_sms_sent_total").increment()
        await SMSDeliveryChecks.follow(sent, in: application)
    }

    /// `+821012345678` as Korean carriers take it: `01012345678`. Other countries keep `+`.
    static func nationalNumber(_ international: String) -> String {
        international.hasPrefix("+82") ? "0" + international.dropFirst(3) : international
    }
}

/// Sends each code by its channel's sender: phones by text message, email by SMTP (or both to
/// the log on a development server).
package struct ChannelCodeSender: CodeSender {
    package let phone: any CodeSender
    package let email: any CodeSender

    package init(phone: any CodeSender, email: any CodeSender) {
        self.phone = phone
        self.email = email
    }

    package func send(_ code: OneTimeCode) async throws {
        switch code.channel {
        case .phone: try await phone.send(code)
        case .email: try await email.send(code)
        }
    }
}

/// Asks Solapi where an accepted message is, from the work queue: 20 seconds after sending, then
/// every 30 seconds for up to 30 minutes. A message that reached the phone counts
/// `whatweeat_sms_delivered_total`; one that failed counts `whatweeat_sms_failed_total{stage="carrier"}`
/// and is logged with Solapi's code (an unreachable number, a spam block); one still pending after
/// half an hour counts `whatweeat_sms_unconfirmed_total`.
enum SMSDeliveryChecks {
    static let kind = "sms.status"
    static let firstCheck: TimeInterval = 20, interval: TimeInterval = 30, patience: TimeInterval = 1_800

    struct Check: Codable {
        let messageID: String
        let sentAt: Date
    }

    static func register(in app: Application, client: SolapiClient) {
        app.workQueue.register(kind) { app, item in
            await check(try item.decode(Check.self), client: client, app: app)
        }
    }

    static func follow(_ sent: SentSMS, in app: Application) async {
        do {
            try await app.workQueue.enqueue(kind, Check(messageID: sent.messageID, sentAt: app.workQueue.clock()), after: firstCheck, on: app.db)
        } catch {
            app.logger.warning("sms: a sent message's delivery will not be followed", metadata: ["message": "\(sent.messageID)", "error": "\(error)"])
        }
    }

    static func check(_ check: Check, client: SolapiClient, app: Application) async -> WorkOutcome {
        let status: SMSDeliveryStatus
        do {
            status = try await client.status(of: check.messageID, now: app.workQueue.clock())
        } catch {
            return .failed(reason: "\(error)", after: interval)
        }
        switch status {
        case .delivered:
            Counter(label: "whatweeat_sms_delivered_total").increment()
            return .done
        case let .failed(code, reason):
            Counter(label: "whatweeat_sms_failed_total", dimensions: [("stage", "carrier")]).increment()
            await app.tally(.smsFailed)
            app.logger.warning("sms: not delivered", metadata: ["message": "\(check.messageID)", "code": "\(code)", "reason": "\(reason ?? "")"])
            return .done
        case .pending:
            guard app.workQueue.clock().timeIntervalSince(check.sentAt) < patience else {
                Counter(label: "whatweeat_sms_unconfirmed_total").increment()
                return .done
            }
            return .retry(after: interval)
        }
    }
}
