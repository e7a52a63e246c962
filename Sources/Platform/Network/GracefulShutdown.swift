package import Vapor

/// What SIGTERM (or SIGINT) does, before anything else stops. Registered last, so it runs first:
/// 1. every live WebSocket is closed with 1012 ("service restart"), so pages reconnect, behind a
///    proxy to another instance (`shared/live.js` comes back within a second or two for 1012);
/// 2. the server stops accepting connections and lets the requests in flight finish, for at most
///    the server's `shutdownTimeout` (10 s; Vapor's quiescing), so every answered write is stored;
/// 3. only then do the other lifecycle handlers (background jobs, the event bus) and the
///    database pools stop. The process then exits 0 (`main.swift`).
package struct GracefulShutdown: LifecycleHandler {
    package func shutdownAsync(_ application: Application) async {
        let open = application.openSockets.openCount
        if open > 0 { application.logger.notice("closing \(open) live sockets for the restart") }
        await application.openSockets.closeAll()
        await application.server.shutdown()
    }

    package init() {}
}
