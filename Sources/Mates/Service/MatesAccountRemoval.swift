import Fluent
import Platform
import SQLKit
import Vapor

/// When an account is deleted its profile, requests, matches, chats and the reviews it wrote go by
/// cascade; first its partner in a running match is set free (back to idle); then the profile's
/// memories forget it (its partner's record too: their ended match went), and the remembered
/// comments are dropped (some were its).
enum MatesAccountRemoval {
    static func register(_ app: Application) {
        app.accountRemovals.register(beforeDelete: { [weak app] user, database in
            guard let app else { return }
            // In the deleting transaction: what changes is announced once the removal is done (below).
            let store = MatesStore.unannounced(on: database, application: app)
            guard let matchID = try await store.model(user)?.matchID else { return }
            try await store.leaveMatch(matchID, except: user)
        }, afterDelete: { [weak app] user, _ in
            guard let app else { return }
            let store = MatesStore(database: app.db, application: app)
            await store.announce([user])
            await store.announceEveryone()
            await app.receivedCommentsMemory.forgetEveryone(announcingOn: app.events)
        })
    }
}
