import Metrics
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import Vapor
#if canImport(Glibc)
import Glibc
#endif

/// What one connection and one client address may hold, so that idle or trickling clients cannot
/// use up the process's file descriptors (a 1,024-descriptor process served nobody once 1,100
/// silent connections were open):
/// - every connection that sends and receives nothing for `IDLE_TIMEOUT` seconds is closed
///   (Vapor's idle handler), which ends silent connections and slow, unfinished requests alike;
///   live sockets are pinged well inside that time, so they stay open;
/// - one address holds at most `MAX_SOCKETS_PER_CLIENT` WebSockets;
/// - the process raises its soft descriptor limit to the hard one at start-up.
/// Vapor 4 does not let an application add handlers to a connection's pipeline, so a per-address
/// cap on plain connections and a deadline for the request head are the reverse proxy's job in a
/// public deployment (docs/SECURITY.md).
package enum ConnectionLimits {
    package static func apply(to app: Application, limits: Settings.Limits) {
        app.http.server.configuration.idleTimeout = .seconds(Int64(limits.idleTimeout))
        // How long a shutdown waits for requests in flight (`GracefulShutdown`).
        app.http.server.configuration.shutdownTimeout = .seconds(10)
        app.openSockets = OpenSockets(limitPerClient: limits.socketsPerClient)
        let (soft, hard) = raiseOpenFileLimit()
        app.logger.debug("open file limit \(soft) (hard \(hard))")
    }

    /// Seconds between pings on a live socket: half the idle timeout, so a quiet room stays open.
    package static func pingInterval(_ app: Application) -> TimeAmount {
        .seconds(Int64(max(1, app.settings.limits.idleTimeout / 2)))
    }

    /// Raises the soft limit on open files to the hard limit; returns both as they end up.
    @discardableResult
    package static func raiseOpenFileLimit() -> (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (0, 0) }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }
}

/// Open WebSockets on this process: how many per client address, and the sockets themselves, so
/// a shutdown can close them all with a code that tells clients to reconnect (`GracefulShutdown`).
package final class OpenSockets: Sendable {
    package let limitPerClient: Int
    private let counts = NIOLockedValueBox<[String: Int]>([:])
    private let live = NIOLockedValueBox<(sockets: [ObjectIdentifier: WebSocket], closing: Bool)>(([:], false))

    /// 1012 "service restart": the server is going away on purpose; come back (to another instance).
    package static let restartCode = WebSocketErrorCode.unknown(1012)

    package init(limitPerClient: Int) {
        self.limitPerClient = limitPerClient
    }

    package func count(of address: String) -> Int {
        counts.withLockedValue { $0[address] ?? 0 }
    }

    /// Takes a place for a socket of `address`, or false when it already holds the most.
    package func take(_ address: String) -> Bool {
        counts.withLockedValue { all in
            let open = all[address] ?? 0
            guard open < limitPerClient else { return false }
            all[address] = open + 1
            return true
        }
    }

    /// Keeps `socket` until `forget`; false once the process is shutting down (close it then).
    package func keep(_ socket: WebSocket) -> Bool {
        live.withLockedValue { state in
            guard !state.closing else { return false }
            state.sockets[ObjectIdentifier(socket)] = socket
            return true
        }
    }

    package func forget(_ socket: WebSocket) {
        _ = live.withLockedValue { $0.sockets.removeValue(forKey: ObjectIdentifier(socket)) }
    }

    package var openCount: Int { live.withLockedValue { $0.sockets.count } }

    /// Closes every socket open now with `restartCode`, and every one opened from now on.
    package func closeAll() async {
        let sockets = live.withLockedValue { state in
            state.closing = true
            return Array(state.sockets.values)
        }
        await withTaskGroup(of: Void.self) { group in
            for socket in sockets {
                group.addTask { try? await socket.close(code: Self.restartCode) }
            }
        }
    }

    package func giveBack(_ address: String) {
        counts.withLockedValue { all in
            let open = (all[address] ?? 1) - 1
            all[address] = open > 0 ? open : nil
        }
    }
}

extension Application {
    private struct OpenSocketsKey: StorageKey { typealias Value = OpenSockets }

    package var openSockets: OpenSockets {
        get { configured(OpenSocketsKey.self) }
        set { storage[OpenSocketsKey.self] = newValue }
    }
}
