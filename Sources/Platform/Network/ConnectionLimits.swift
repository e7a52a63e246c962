import Metrics
import NIOConcurrencyHelpers
import NIOCore
package import NIOWebSocket
package import Vapor
#if canImport(Glibc)
import Glibc
#endif

/// What one connection and one client address may hold, so that idle or trickling clients cannot
/// use up the process's file descriptors (a 1,024-descriptor process served nobody once 1,100
/// silent connections were open):
/// - every connection that sends and receives nothing for `IDLE_TIMEOUT` seconds is closed
///   (Vapor's idle handler), which ends silent connections and slow, unfinished requests alike;
///   live sockets are pinged well inside that time, so they stay open;
/// - one network (`ClientNetwork`) holds at most `MAX_SOCKETS_PER_CLIENT` WebSockets;
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
    static func raiseOpenFileLimit() -> (soft: UInt64, hard: UInt64) {
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

/// Open WebSockets on this process: how many per client network (`ClientNetwork`: an IPv4
/// address or an IPv6 /64, and ten times as many per /48), whose session and account each one
/// serves, and the sockets themselves, so a shutdown can close them all with a code that tells
/// clients to reconnect (`GracefulShutdown`) and the end of a session closes its own (`SessionEnds`).
package final class OpenSockets: Sendable {
    let limitPerClient: Int
    private let counts = NIOLockedValueBox<[String: Int]>([:])
    private let live = NIOLockedValueBox<(sockets: [ObjectIdentifier: Entry], closing: Bool)>(([:], false))

    private struct Entry {
        let socket: WebSocket
        let owner: SignedInAccount?
        let feature: String
    }

    /// 1012 "service restart": the server is going away on purpose; come back (to another instance).
    package static let restartCode = WebSocketErrorCode.unknown(1012)
    /// 4401: the session (or account) this socket was opened under has ended; sign in again.
    package static let sessionEndedCode = WebSocketErrorCode.unknown(4401)

    package init(limitPerClient: Int) {
        self.limitPerClient = limitPerClient
    }

    private var wideLimit: Int {
        let (wide, overflow) = limitPerClient.multipliedReportingOverflow(by: ClientNetwork.wideFactor)
        return overflow ? Int.max : wide
    }

    package func count(of network: ClientNetwork) -> Int {
        counts.withLockedValue { $0[network.key] ?? 0 }
    }

    /// The sockets open now of the network `address` belongs to.
    package func count(of address: String) -> Int { count(of: ClientNetwork(address: address)) }

    /// Whether `network` (and its /48) could take another place now.
    func hasRoom(for network: ClientNetwork) -> Bool {
        counts.withLockedValue { all in
            (all[network.key] ?? 0) < limitPerClient && network.wideKey.map { (all[$0] ?? 0) < wideLimit } ?? true
        }
    }

    /// Takes a place for a socket of `network`, or false when it (or its /48) already holds the most.
    package func take(_ network: ClientNetwork) -> Bool {
        counts.withLockedValue { all in
            let open = all[network.key] ?? 0
            guard open < limitPerClient else { return false }
            if let wideKey = network.wideKey {
                let wideOpen = all[wideKey] ?? 0
                guard wideOpen < wideLimit else { return false }
                all[wideKey] = wideOpen + 1
            }
            all[network.key] = open + 1
            return true
        }
    }

    package func giveBack(_ network: ClientNetwork) {
        counts.withLockedValue { all in
            for key in [network.key] + (network.wideKey.map { [$0] } ?? []) {
                let open = (all[key] ?? 1) - 1
                all[key] = open > 0 ? open : nil
            }
        }
    }

    /// Keeps `socket` of `feature` (opened under `owner`'s session, if signed in) until `forget`;
    /// false once the process is shutting down (close it then).
    package func keep(_ socket: WebSocket, owner: SignedInAccount? = nil, feature: String = "") -> Bool {
        live.withLockedValue { state in
            guard !state.closing else { return false }
            state.sockets[ObjectIdentifier(socket)] = Entry(socket: socket, owner: owner, feature: feature)
            return true
        }
    }

    package func forget(_ socket: WebSocket) {
        _ = live.withLockedValue { $0.sockets.removeValue(forKey: ObjectIdentifier(socket)) }
    }

    var openCount: Int { live.withLockedValue { $0.sockets.count } }

    /// Closes every socket open now with `restartCode`, and every one opened from now on.
    package func closeAll() async {
        let sockets = live.withLockedValue { state in
            state.closing = true
            return state.sockets.values.map(\.socket)
        }
        await close(sockets, code: Self.restartCode)
    }

    /// Closes, with `sessionEndedCode`, the sockets of this process opened under the session or
    /// account that `end` names. Returns how many.
    @discardableResult
    package func close(_ end: SessionEnd) async -> Int {
        let sockets = live.withLockedValue { state in
            state.sockets.values.filter { entry in
                entry.owner.map { end.ends(owner: $0, feature: entry.feature) } ?? false
            }.map(\.socket)
        }
        await close(sockets, code: Self.sessionEndedCode)
        return sockets.count
    }

    private func close(_ sockets: [WebSocket], code: WebSocketErrorCode) async {
        await withTaskGroup(of: Void.self) { group in
            for socket in sockets {
                group.addTask { try? await socket.close(code: code) }
            }
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
