import Accounts
package import Fluent
package import Foundation
package import Messaging
import Metrics
import NIOConcurrencyHelpers
package import Platform
package import Vapor

/// An install of a shipped app that takes pushes through FCM: its registration token, the Firebase
/// project it belongs to, and where the token is kept (`source`, and what that source knows it by).
package struct AppDevice: Codable, Sendable, Equatable {
    /// The app layer keeping the token (`sesac`).
    package let source: String
    /// What the source knows the install by (a 새싹 uid).
    package let reference: String
    package let project: String
    package let token: String

    package init(source: String, reference: String, project: String, token: String) {
        self.source = source
        self.reference = reference
        self.project = project
        self.token = token
    }
}

/// An app layer whose installs take pushes (issue 60): it names an account's installs, adds what
/// its app routes with to each message, and forgets a token FCM says is gone. Registered at start
/// (`app.appDeviceSources.register`).
package struct AppDeviceSource: Sendable {
    package let name: String
    /// The installs signed in as an account, each with a token.
    package let devices: @Sendable (Application, UUID) async throws -> [AppDevice]
    /// The data an entry's push carries for the app to open the right screen (the other person's uid).
    package let data: @Sendable (Application, NotificationStore.Listed) async throws -> [String: String]
    /// FCM said the token is no good: the source stops keeping it (unless the install sent a new one).
    package let forget: @Sendable (Application, AppDevice) async throws -> Void

    package init(name: String, devices: @escaping @Sendable (Application, UUID) async throws -> [AppDevice],
                 data: @escaping @Sendable (Application, NotificationStore.Listed) async throws -> [String: String],
                 forget: @escaping @Sendable (Application, AppDevice) async throws -> Void) {
        self.name = name
        self.devices = devices
        self.data = data
        self.forget = forget
    }
}

/// The registered sources, by name.
package final class AppDeviceSources: Sendable {
    private let sources = NIOLockedValueBox<[String: AppDeviceSource]>([:])

    package func register(_ source: AppDeviceSource) { sources.withLockedValue { $0[source.name] = source } }

    subscript(name: String) -> AppDeviceSource? { sources.withLockedValue { $0[name] } }

    var all: [AppDeviceSource] { sources.withLockedValue { Array($0.values) }.sorted { $0.name < $1.name } }
}

extension Application {
    private struct AppDeviceSourcesKey: StorageKey { typealias Value = AppDeviceSources }

    /// The app layers whose installs take pushes. Made on first use, which is at start
    /// (`NotificationsFeature.configure` and the layers' `configure`), never while serving.
    package var appDeviceSources: AppDeviceSources {
        if let sources = storage[AppDeviceSourcesKey.self] { return sources }
        let sources = AppDeviceSources()
        storage[AppDeviceSourcesKey.self] = sources
        return sources
    }
}

/// Inbox entries pushed to the recipient's app installs through FCM, beside the browsers' Web
/// Push (`PushDeliveries.notify` queues both): one `push.app` item per install in the durable work
/// queue, rendered when sent from the entry as it is then, with the person's push preferences (the
/// same switches as Web Push). FCM's `UNREGISTERED` (or a token it calls invalid) has the source
/// forget the token; 429 and 5xx come back through the queue, honouring `Retry-After`.
package enum AppPushes {
    static let deliverKind = "push.app", sendKind = "push.app.message"

    struct Deliver: Codable {
        let notification: UUID
        let recipient: UUID
        let device: AppDevice
    }

    /// The recipient's installs that take pushes; none without FCM.
    static func devices(of recipient: UUID, app: Application) async throws -> [AppDevice] {
        guard app.notificationsEnvironment.appPush != nil else { return [] }
        var devices: [AppDevice] = []
        for source in app.appDeviceSources.all {
            devices += try await source.devices(app, recipient).filter { !$0.token.isEmpty }
        }
        return devices
    }

    /// Queues an entry's push to each of `devices` (from `PushDeliveries.notify`).
    static func enqueue(_ notification: UUID, for recipient: UUID, to devices: [AppDevice], app: Application) async throws {
        for device in devices {
            try await app.workQueue.enqueue(deliverKind, Deliver(notification: notification, recipient: recipient, device: device), on: app.db)
        }
    }

    /// A message of its own (not an inbox entry's) to one install: a room's result to the
    /// 우리뭐먹지 app's players, who have no account. Queued in the caller's transaction.
    struct Send: Codable {
        let message: FCMMessage
        let device: AppDevice
    }

    /// Queues `message` to `device` (nothing without FCM): sent from the durable work queue, its
    /// answer read as an entry's is.
    package static func send(title: String, body: String, data: [String: String], collapseKey: String?, timeToLive: Int,
                             to device: AppDevice, app: Application, on database: any Database) async throws {
        guard app.notificationsEnvironment.appPush != nil, !device.token.isEmpty else { return }
        let message = FCMMessage(token: device.token, title: title, body: body, data: data, collapseKey: collapseKey, timeToLive: timeToLive)
        try await app.workQueue.enqueue(sendKind, Send(message: message, device: device), on: database)
    }

    static func register(in app: Application) {
        app.workQueue.register(deliverKind) { app, item in
            await deliver(try item.decode(Deliver.self), app: app)
        }
        app.workQueue.register(sendKind) { app, item in
            let send = try item.decode(Send.self)
            guard let sender = app.notificationsEnvironment.appPush else { return .done }
            return await outcome(of: await sender.send(send.message, project: send.device.project), to: send.device,
                                 source: app.appDeviceSources[send.device.source], app: app)
        }
    }

    static func deliver(_ deliver: Deliver, app: Application) async -> WorkOutcome {
        guard let sender = app.notificationsEnvironment.appPush, let source = app.appDeviceSources[deliver.device.source] else { return .done }
        do {
            // The install still holds this token for this account (not withdrawn, signed out or renewed since).
            guard try await source.devices(app, deliver.recipient).contains(deliver.device) else { return .done }
            guard let message = try await message(deliver, source: source, app: app) else { return .done }
            return await outcome(of: await sender.send(message, project: deliver.device.project), to: deliver.device, source: source, app: app)
        } catch {
            return .failed(reason: String(describing: error), after: nil)
        }
    }

    /// What the queue does after FCM's answer: a gone token forgotten by its source, a busy FCM
    /// tried again when it says, a refusal logged.
    static func outcome(of delivery: FCMDelivery, to device: AppDevice, source: AppDeviceSource?, app: Application) async -> WorkOutcome {
        switch delivery {
        case .accepted:
            Counter(label: "whatweeat_app_push_sent_total").increment()
            return .done
        case .gone(let reason):
            do {
                try await source?.forget(app, device)
            } catch {
                return .failed(reason: "forgetting a gone token: \(error)", after: nil)
            }
            Counter(label: "whatweeat_app_push_removed_total").increment()
            app.logger.info("app push: FCM says the token is gone; forgotten", metadata: ["reason": "\(reason)", "source": "\(device.source)"])
            return .done
        case .later(let retryAfter):
            Counter(label: "whatweeat_app_push_failed_total").increment()
            await app.tally(.pushFailed)
            return .failed(reason: "FCM busy or unreachable", after: retryAfter)
        case .refused(let status, let reason):
            Counter(label: "whatweeat_app_push_failed_total").increment()
            await app.tally(.pushFailed)
            app.logger.warning("app push: refused by FCM", metadata: ["status": "\(status)", "reason": "\(reason)", "project": "\(device.project)"])
            return .done
        case .noAccount:
            app.logger.notice("app push: no service account for the install's project", metadata: ["project": "\(device.project)"])
            return .done
        }
    }

    /// The message an install is sent now, or nil when there is nothing to push (the entry went,
    /// was read or is switched off). A chat line reads as a messenger's: the sender's name over the
    /// line (or over "a new message" when the person hides the words).
    static func message(_ deliver: Deliver, source: AppDeviceSource, app: Application) async throws -> FCMMessage? {
        let preferences = try await PushStore(database: app.db).preferences(of: deliver.recipient)
        let inbox = NotificationStore(database: app.db, application: app)
        guard let entry = try await inbox.notification(deliver.notification, for: deliver.recipient), entry.readAt == nil,
              PushDeliveries.allows(entry.kind, preferences) else { return nil }
        let language = try await AccountStore.language(of: deliver.recipient, on: app.db) ?? .default
        let hideText = preferences.hideText ?? false
        let rendered = PushDeliveries.render(entry, language: language, hideText: hideText, app: app)
        var title = rendered.title, body = rendered.body
        if entry.kind == "mates_messages", let sender = entry.actor {
            title = sender.nickname
            let excerpt = entry.excerpt ?? ""
            if !hideText, !excerpt.isEmpty { body = excerpt } else { body = rendered.body }
        }
        var data = try await source.data(app, entry)
        data["kind"] = entry.kind
        data["url"] = rendered.url
        let urgent = ["mates_messages", "mates_request", "mates_matched"].contains(entry.kind)
        return FCMMessage(token: deliver.device.token, title: title, body: body, data: data, collapseKey: rendered.tag,
                          timeToLive: urgent ? 24 * 3600 : 3 * 24 * 3600)
    }
}
