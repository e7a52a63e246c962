import Fluent
import Platform
import SQLKit
import Vapor

/// When an account is deleted its profile, requests, matches, chats and the reviews it wrote go by
/// cascade; first its partner in a running match is set free (back to idle); then the searching
/// index forgets it, and the remembered comments are dropped (some were its).
enum MatesAccountRemoval {
    package static func register(_ app: Application) {
        app.accountRemovals.register(beforeDelete: { user, database in
            guard let matchID = try await MatesProfile.find(user, on: database)?.matchID else { return }
            try await database.sql.update(MatesProfile.schema)
                .set("state", to: SQLBind(MatesState.idle.rawValue)).set("match_id", to: SQLLiteral.null)
                .where("match_id", .equal, SQLBind(matchID)).where("id", .notEqual, SQLBind(user)).run()
        }, afterDelete: { [weak app] user, _ in
            guard let app else { return }
            try await MatesService(database: app.db, application: app).searchingChanged(user)
            await app.receivedCommentsMemory.forgetEveryone(announcingOn: app.events)
        })
    }
}
