package import Foundation
package import Messaging
package import Platform
package import Vapor

/// What the inbox's store uses beside its database, made once by `NotificationsFeature.configure`
/// and kept under one key (issue 59): the clock, the event bus, the log, the remembered counts and
/// first pages, and the queue each posted entry is pushed from. Every feature's inbox store is
/// made from it (`NotificationStore(database:application:)` reads it in one look-up).
///
/// `now` stamps an entry moved to the top, a read, a push preference and the push keys; a test
/// moves it (`app.withClock(\.notificationsEnvironment, ahead:)`).
package struct NotificationsEnvironment: FeatureEnvironment {
    package var now: @Sendable () -> Date
    package let events: any EventBus
    package let logger: Logger
    let unreadCounts: UnreadCounts
    /// Where each entry posted is queued to be pushed (`PushDeliveries`); nil: nothing is pushed.
    let pushQueue: WorkQueue?
    /// FCM, for the shipped apps' installs (`AppPushes`); nil without `FCM_SERVICE_ACCOUNTS`.
    let appPush: FCMSender?

    init(now: @escaping Now, events: any EventBus, logger: Logger, unreadCounts: UnreadCounts, pushQueue: WorkQueue?, appPush: FCMSender? = nil) {
        self.now = now
        self.events = events
        self.logger = logger
        self.unreadCounts = unreadCounts
        self.pushQueue = pushQueue
        self.appPush = appPush
    }
}

extension Application {
    private struct NotificationsEnvironmentKey: StorageKey { typealias Value = NotificationsEnvironment }

    package var notificationsEnvironment: NotificationsEnvironment {
        get { configured(NotificationsEnvironmentKey.self) }
        set { storage[NotificationsEnvironmentKey.self] = newValue }
    }

    /// The inboxes' remembered counts and first pages (`notificationsEnvironment.unreadCounts`).
    package var unreadCounts: UnreadCounts { notificationsEnvironment.unreadCounts }
}
