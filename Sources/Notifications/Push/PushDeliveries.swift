import Accounts
import AsyncHTTPClient
import Fluent
import Foundation
import Messaging
import Metrics
import Platform
import Vapor

/// Every inbox entry is also pushed to the recipient's browsers, as they asked
/// (`PushPreferences`), through the durable work queue in two steps: `push.notify` reads the entry
/// in the recipient's language and queues one `push.deliver` per browser, so a browser whose push
/// service is slow or down is retried on its own (backing off, honouring `Retry-After`), and one
/// that is gone (404, 410) is forgotten.
package enum PushDeliveries {
    static let notifyKind = "push.notify", deliverKind = "push.deliver"

    struct Notify: Codable { let notification: UUID; let recipient: UUID }

    /// One browser's message: `payload` is the JSON the service worker reads.
    struct Deliver: Codable {
        let subscription: UUID
        let payload, urgency: String
        let timeToLive: Int
        let topic: String?
    }

    /// What the service worker shows. Notifications with the same `tag` replace each other on the
    /// device (one conversation).
    struct Payload: Codable { let title, body, url, tag, kind: String }

    /// Which switch of `PushPreferences` lets an entry of `kind` through.
    static func allows(_ kind: String, _ preferences: PushPreferences) -> Bool {
        switch kind {
        case "mates_messages": return preferences.chat
        // Asked, matched, the meeting dodged or finished: the steps of a request.
        case let mates where mates.hasPrefix("mates_"): return preferences.requests
        case let order where order.hasPrefix("order_"): return preferences.orders
        case let group where group.hasPrefix("group_"): return preferences.groupGames
        default: return preferences.social
        }
    }

    /// Queues the push of an entry just posted (or moved to the top).
    static func enqueue(_ notification: UUID, for recipient: UUID, app: Application, on database: any Database) async {
        do {
            try await app.workQueue.enqueue(notifyKind, Notify(notification: notification, recipient: recipient), on: database)
        } catch {
            app.logger.warning("push: not queued: \(error)")
        }
    }

    /// Registers both steps with the app's work queue, and the client the deliveries use.
    static func register(in app: Application) {
        let client = WebPushSender.makeClient(on: app.eventLoopGroup)
        app.lifecycle.use(HTTPClientShutdown(client: client))
        let sender = WebPushSender(client: client)
        app.workQueue.register(notifyKind) { app, item in
            try await notify(try item.decode(Notify.self), app: app)
            return .done
        }
        app.workQueue.register(deliverKind) { app, item in
            await deliver(try item.decode(Deliver.self), sender: sender, app: app)
        }
    }

    static func notify(_ notify: Notify, app: Application) async throws {
        let store = PushStore(database: app.db)
        let subscriptions = try await store.subscriptions(of: notify.recipient)
        guard !subscriptions.isEmpty else { return }
        let preferences = try await store.preferences(of: notify.recipient)
        let inbox = NotificationStore(database: app.db, application: app)
        // Read by then (the chat was opened, the inbox looked at): nothing to push.
        guard let entry = try await inbox.notification(notify.notification, for: notify.recipient), entry.readAt == nil,
              allows(entry.kind, preferences) else { return }
        let language = try await AccountStore.language(of: notify.recipient, on: app.db) ?? .default
        let payload = render(entry, language: language, hideText: preferences.hideText ?? false, app: app)
        let urgent = ["mates_messages", "mates_request", "mates_matched"].contains(entry.kind)
        let deliver = { (subscription: PushSubscriptionRow) in
            Deliver(subscription: subscription.id, payload: String(decoding: try JSONEncoder().encode(payload), as: UTF8.self),
                    urgency: (urgent ? PushMessage.Urgency.high : .normal).rawValue, timeToLive: urgent ? 24 * 3600 : 3 * 24 * 3600,
                    topic: entry.id.uuidString.replacingOccurrences(of: "-", with: "").lowercased())
        }
        for subscription in subscriptions {
            try await app.workQueue.enqueue(deliverKind, try deliver(subscription), on: app.db)
        }
    }

    /// The entry as the lock screen shows it, in the recipient's language; the quote only when
    /// they did not ask to hide it.
    static func render(_ entry: NotificationStore.Listed, language: Language, hideText: Bool, app: Application) -> Payload {
        let translator = app.translator
        let actor = entry.actor?.nickname ?? translator.text("notification.someone", language)
        let key = entry.count > 1 ? "notification.\(entry.kind).many" : "notification.\(entry.kind)"
        let message = translator.text(key, language, ["actor": actor, "count": String(entry.count)])
        let service = entry.service.replacingOccurrences(of: "-", with: "_")
        var body = message
        if !hideText, let excerpt = entry.excerpt, !excerpt.isEmpty { body += "\n" + excerpt }
        return Payload(title: translator.text("service.\(service).name", language), body: body,
                       url: Layout.safeNextPath(entry.link) ?? "/notifications", tag: entry.subjectID.map { "\(entry.kind):\($0)" } ?? entry.id.uuidString,
                       kind: entry.kind)
    }

    static func deliver(_ deliver: Deliver, sender: WebPushSender, app: Application) async -> WorkOutcome {
        let store = PushStore(database: app.db)
        do {
            guard let subscription = try await store.subscription(deliver.subscription) else { return .done }
            // PUSH_SERVICES may have narrowed since it was subscribed: the server calls only listed origins.
            guard app.settings.push.accepts(subscription.endpoint) else {
                try await store.remove(subscription.id)
                return .done
            }
            // Signed out (or the session revoked) since: this browser is someone else's now, maybe.
            if let session = subscription.sessionID, try await !AccountService.sessionIsLive(session, of: subscription.userID, in: app) {
                try await store.remove(subscription.id)
                Counter(label: "whatweeat_push_removed_total").increment()
                return .done
            }
            let vapid = try await app.pushKeys.vapid(app.db)
            let message = PushMessage(payload: Data(deliver.payload.utf8), timeToLive: deliver.timeToLive,
                                      urgency: PushMessage.Urgency(rawValue: deliver.urgency) ?? .normal, topic: deliver.topic)
            switch await sender.send(message, to: subscription.endpoint, keys: subscription.keys, vapid: vapid) {
            case .accepted:
                Counter(label: "whatweeat_push_sent_total").increment()
                return .done
            case .gone:
                try await store.remove(subscription.id)
                Counter(label: "whatweeat_push_removed_total").increment()
                return .done
            case .later(let retryAfter):
                Counter(label: "whatweeat_push_failed_total").increment()
                await app.tally(.pushFailed)
                return .failed(reason: "push service busy or unreachable", after: retryAfter)
            case .refused(let status):
                Counter(label: "whatweeat_push_failed_total").increment()
                await app.tally(.pushFailed)
                app.logger.warning("push: refused by the push service", metadata: ["status": "\(status)"])
                return .done
            }
        } catch {
            return .failed(reason: String(describing: error), after: nil)
        }
    }
}

