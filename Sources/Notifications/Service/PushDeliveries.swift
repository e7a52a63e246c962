import Accounts
import AsyncHTTPClient
import Fluent
import Foundation
import Messaging
import Metrics
import NIOConcurrencyHelpers
import Platform
import Vapor

/// Every inbox entry is also pushed to the recipient's browsers, as they asked
/// (`PushPreferences`), through the durable work queue in two steps: `push.notify` finds the
/// recipient's browsers and queues one `push.deliver` per browser, so a browser whose push service
/// is slow or down is retried on its own (backing off, honouring `Retry-After`). A delivery names
/// the entry, not its words: the text is rendered when it is sent, from the inbox row as it is then
/// (a deleted comment's quote blanked, a withdrawn entry gone, `hideText` as now). A push service
/// that says the browser is gone (404, 410), or refuses it as malformed or foreign (400, 403), has it
/// forgotten at once; other refusals, after `refusalsBeforeForgetting` in a row. At most
/// `sendingPerOrigin` requests go to one push service at once, so a slow one holds only a few of the
/// queue's slots.
package enum PushDeliveries {
    static let notifyKind = "push.notify", deliverKind = "push.deliver"
    /// Refusals in a row (413, 401…) after which a subscription is forgotten; a success resets them.
    static let refusalsBeforeForgetting = 3
    /// Requests to one push service (origin) at once, and deliveries that may wait their turn a
    /// little (`turnWait`); the rest are put off (`busyOriginDelay`), freeing their slots of the queue.
    static let sendingPerOrigin = 8, waitingPerOrigin = 8
    static let turnWait: Duration = .seconds(2)
    static let busyOriginDelay: TimeInterval = 2

    struct Notify: Codable { let notification: UUID; let recipient: UUID }

    /// One browser's push of one entry: what identifies it, never its words.
    struct Deliver: Codable {
        let subscription: UUID
        /// The inbox entry, and whose it is; nil in an item queued before deliveries were rendered
        /// when sent, whose entry is named by `topic`.
        var notification: UUID? = nil
        var recipient: UUID? = nil
        /// An item queued before 2026-12-05 carried the rendered `payload` (with `urgency` and
        /// `timeToLive`): not sent as it was (it may quote words deleted since); its `topic` is the
        /// entry's id, so it is rendered afresh like the others.
        var topic: String? = nil

        /// The entry this delivery pushes.
        var entry: UUID? {
            if let notification { return notification }
            guard let hex = topic, hex.count == 32, hex.allSatisfy(\.isHexDigit) else { return nil }
            let characters = Array(hex)
            let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
            return UUID(uuidString: parts.joined(separator: "-"))
        }
    }

    /// What the service worker shows. Notifications with the same `tag` replace each other on the
    /// device (one conversation).
    struct Payload: Codable { let title, body, url, tag, kind: String }

    /// Which switch of `PushPreferences` lets an entry of `kind` through.
    package static func allows(_ kind: String, _ preferences: PushPreferences) -> Bool {
        switch kind {
        case "mates_messages": return preferences.chat
        // Asked, matched, the meeting dodged or finished: the steps of a request.
        case let mates where mates.hasPrefix("mates_"): return preferences.requests
        case let order where order.hasPrefix("order_"): return preferences.orders
        case let group where group.hasPrefix("group_"): return preferences.groupGames
        case let account where account.hasPrefix("account_"): return preferences.account ?? true
        default: return preferences.social
        }
    }

    /// Queues the push of an entry just posted (or moved to the top).
    static func enqueue(_ notification: UUID, for recipient: UUID, on queue: WorkQueue, logger: Logger, database: any Database) async {
        do {
            try await queue.enqueue(notifyKind, Notify(notification: notification, recipient: recipient), on: database)
        } catch {
            logger.warning("push: not queued: \(error)")
        }
    }

    /// Registers both steps with the app's work queue, and the client the deliveries use.
    static func register(in app: Application) {
        let client = WebPushSender.makeClient(on: app.eventLoopGroup)
        app.lifecycle.use(HTTPClientShutdown(client: client))
        let sender = WebPushSender(client: client)
        let origins = OriginTurns(sending: sendingPerOrigin, waiting: waitingPerOrigin)
        app.workQueue.register(notifyKind) { app, item in
            try await notify(try item.decode(Notify.self), app: app)
            return .done
        }
        app.workQueue.register(deliverKind) { app, item in
            await deliver(try item.decode(Deliver.self), sender: sender, origins: origins, app: app)
        }
    }

    static func notify(_ notify: Notify, app: Application) async throws {
        let store = PushStore(database: app.db)
        let subscriptions = try await store.subscriptions(of: notify.recipient)
        // The recipient's app installs (FCM), each its own delivery.
        let devices = try await AppPushes.devices(of: notify.recipient, app: app)
        // Nobody to push to (no browser, no app install): the entry is not even read.
        guard !subscriptions.isEmpty || !devices.isEmpty,
              try await Self.message(notify.notification, for: notify.recipient, app: app) != nil else { return }
        try await AppPushes.enqueue(notify.notification, for: notify.recipient, to: devices, app: app)
        for subscription in subscriptions {
            try await app.workQueue.enqueue(deliverKind, Deliver(subscription: subscription.id, notification: notify.notification,
                                                                 recipient: notify.recipient), on: app.db)
        }
    }

    /// The message that pushes the entry now, or nil when there is nothing to push: the entry is gone
    /// (withdrawn), read (the chat was opened, the inbox looked at), or of a kind switched off.
    static func message(_ notification: UUID, for recipient: UUID, app: Application) async throws -> PushMessage? {
        let preferences = try await PushStore(database: app.db).preferences(of: recipient)
        let inbox = NotificationStore(database: app.db, application: app)
        guard let entry = try await inbox.notification(notification, for: recipient), entry.readAt == nil,
              allows(entry.kind, preferences) else { return nil }
        let language = try await AccountStore.language(of: recipient, on: app.db) ?? .default
        let payload = render(entry, language: language, hideText: preferences.hideText ?? false, app: app)
        let urgent = ["mates_messages", "mates_request", "mates_matched"].contains(entry.kind)
        return PushMessage(payload: try JSONEncoder().encode(payload), timeToLive: urgent ? 24 * 3600 : 3 * 24 * 3600,
                           urgency: urgent ? .high : .normal, topic: entry.id.uuidString.replacingOccurrences(of: "-", with: "").lowercased())
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

    static func deliver(_ deliver: Deliver, sender: WebPushSender, origins: OriginTurns, app: Application) async -> WorkOutcome {
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
            // An item of the old shape without an entry's id cannot be rendered afresh: dropped.
            guard let entry = deliver.entry else { return .done }
            // Handed over to another account since (its keys presented there): not the recipient's browser now.
            let recipient = deliver.recipient ?? subscription.userID
            guard subscription.userID == recipient else { return .done }
            // Rendered now, from the inbox as it is: nothing when the entry went, was read or switched off.
            guard let message = try await Self.message(entry, for: recipient, app: app) else { return .done }
            let vapid = try await app.pushKeys.vapid(app.db, now: app.notificationsEnvironment.now())
            // One push service takes a few of the queue's slots at most: the rest wait a little, or come back later.
            let origin = URL(string: subscription.endpoint).map { "\($0.scheme ?? "")://\($0.host ?? ""):\($0.port ?? 0)" } ?? subscription.endpoint
            guard await origins.enter(origin, waitingUpTo: turnWait) else { return .retry(after: busyOriginDelay) }
            let delivery = await sender.send(message, to: subscription.endpoint, keys: subscription.keys, vapid: vapid, now: app.notificationsEnvironment.now())
            origins.leave(origin)
            switch delivery {
            case .accepted:
                Counter(label: "whatweeat_push_sent_total").increment()
                if subscription.refusals > 0 { try await store.accepted(subscription.id) }
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
                // 400 and 403: malformed, or another server's subscription; sending again will not help.
                var metadata: Logger.Metadata = ["status": "\(status)"]
                var forget = true
                if ![400, 403].contains(status) {
                    let refusals = try await store.refused(subscription.id)
                    metadata["refusals"] = "\(refusals)"
                    forget = refusals >= refusalsBeforeForgetting
                }
                if forget {
                    try await store.remove(subscription.id)
                    Counter(label: "whatweeat_push_removed_total").increment()
                    app.logger.warning("push: refused by the push service; subscription forgotten", metadata: metadata)
                } else {
                    app.logger.warning("push: refused by the push service", metadata: metadata)
                }
                return .done
            }
        } catch {
            return .failed(reason: String(describing: error), after: nil)
        }
    }
}

/// Turns at each push service: at most `sending` requests to one origin at once, and `waiting` more
/// that may wait a little for a turn; the rest are told no at once (put off, their queue slots free).
final class OriginTurns: Sendable {
    private struct Origin { var sending = 0, waiting = 0 }
    private let origins = NIOLockedValueBox<[String: Origin]>([:])
    let sending: Int, waiting: Int

    init(sending: Int, waiting: Int) {
        self.sending = sending
        self.waiting = waiting
    }

    /// Takes a turn at `origin`, waiting up to `wait` among the few allowed to wait; false when none
    /// came (call `leave` after a true).
    func enter(_ origin: String, waitingUpTo wait: Duration) async -> Bool {
        enum First { case entered, wait, refused }
        let first = origins.withLockedValue { origins -> First in
            var state = origins[origin, default: Origin()]
            defer { origins[origin] = state }
            if state.sending < sending {
                state.sending += 1
                return .entered
            }
            guard state.waiting < waiting else { return .refused }
            state.waiting += 1
            return .wait
        }
        switch first {
        case .entered: return true
        case .refused: return false
        case .wait: break
        }
        let deadline = ContinuousClock.now + wait
        while true {
            let entered = origins.withLockedValue { origins -> Bool in
                guard origins[origin, default: Origin()].sending < sending else { return false }
                origins[origin, default: Origin()].sending += 1
                origins[origin, default: Origin()].waiting -= 1
                return true
            }
            if entered { return true }
            if ContinuousClock.now >= deadline || Task.isCancelled {
                origins.withLockedValue { origins in
                    origins[origin, default: Origin()].waiting -= 1
                    if origins[origin].map({ $0.sending == 0 && $0.waiting == 0 }) == true { origins[origin] = nil }
                }
                return false
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    func leave(_ origin: String) {
        origins.withLockedValue { origins in
            origins[origin, default: Origin()].sending -= 1
            if origins[origin].map({ $0.sending <= 0 && $0.waiting <= 0 }) == true { origins[origin] = nil }
        }
    }
}
