import NIOCore
package import Vapor

/// An origin as a browser or a socket library writes it (`https://host`, `ws://host:1210`),
/// compared as an origin: scheme, host and port, with the default port filled in (Starscream
/// writes `Host: host:80` beside `Origin: ws://host`), `ws`/`wss` read as `http`/`https` (the
/// socket libraries name the socket's scheme), the host lower-cased without a trailing dot.
package struct WebOrigin: Hashable, Sendable, CustomStringConvertible {
    package let scheme: String
    package let host: String
    package let port: Int

    package init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// Reads `scheme://host[:port]` (a path is ignored); nil for `null`, a scheme other than
    /// http(s)/ws(s), or no host.
    package init?(_ text: String) {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let scheme: String
        switch text[..<schemeEnd.lowerBound].lowercased() {
        case "http", "ws": scheme = "http"
        case "https", "wss": scheme = "https"
        default: return nil
        }
        let authority = text[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@"), let (host, port) = Self.hostAndPort(String(authority)) else { return nil }
        self.init(scheme: scheme, host: host, port: port ?? Self.defaultPort(scheme))
    }

    /// The origin a request was sent to: its scheme and its `Host` header.
    package init?(scheme: String, hostHeader: String) {
        guard let (host, port) = Self.hostAndPort(hostHeader) else { return nil }
        self.init(scheme: scheme, host: host, port: port ?? Self.defaultPort(scheme))
    }

    static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    /// `host[:port]` or `[v6]:port`, lower-cased, without a trailing dot; nil when malformed.
    static func hostAndPort(_ authority: String) -> (host: String, port: Int?)? {
        var host = Substring(authority.lowercased())
        var port: Int?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()), (1...65535).contains(value) else { return nil }
                port = value
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]), (1...65535).contains(value) else { return nil }
            port = value
            host = host[..<colon]
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }) else { return nil }
        return (String(host), port)
    }

    /// Whether `host` is an IP address literal: a page on such an origin is served by the machine
    /// at that address, so no DNS-rebinding page can stand behind it.
    static func isAddressLiteral(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    package var description: String {
        port == Self.defaultPort(scheme) ? "\(scheme)://\(host)" : "\(scheme)://\(host):\(port)"
    }
}

/// The hosts this server answers for in production: `PUBLIC_URL`'s and `SERVED_HOSTS`' (the apps'
/// hosts on 1210, say). A request whose `Host` names another gets 421, which defeats DNS
/// rebinding for every route (a page whose name was re-pointed at the server sends its own name);
/// address literals pass (no name to re-point), and so do the probes a machine makes of itself
/// (`/healthz`, `/readyz`, `/metrics`, which have their own guard). Unset (`PUBLIC_URL` not set:
/// a local run), every host is served.
package struct ServedHosts: Sendable, Equatable {
    package var hostnames: Set<String>
    package var origins: Set<WebOrigin>

    package init(hostnames: Set<String> = [], origins: Set<WebOrigin> = []) {
        self.hostnames = hostnames
        self.origins = origins
    }

    /// `PUBLIC_URL`'s origin and each `SERVED_HOSTS` entry (`host`, `host:port` or
    /// `http(s)://host[:port]`); a bare host serves both schemes on their default ports.
    package init?(publicURL: String, entries: [String]) {
        guard let publicOrigin = WebOrigin(publicURL) else { return nil }
        var served = ServedHosts(hostnames: [publicOrigin.host], origins: [publicOrigin])
        for entry in entries {
            if entry.contains("://") {
                guard let origin = WebOrigin(entry) else { return nil }
                served.hostnames.insert(origin.host)
                served.origins.insert(origin)
            } else {
                guard let (host, port) = WebOrigin.hostAndPort(entry) else { return nil }
                served.hostnames.insert(host)
                if let port {
                    served.origins.insert(WebOrigin(scheme: "http", host: host, port: port))
                    served.origins.insert(WebOrigin(scheme: "https", host: host, port: port))
                } else {
                    served.origins.insert(WebOrigin(scheme: "http", host: host, port: 80))
                    served.origins.insert(WebOrigin(scheme: "https", host: host, port: 443))
                }
            }
        }
        self = served
    }

    package func serves(hostHeader: String) -> Bool {
        guard let (host, _) = WebOrigin.hostAndPort(hostHeader) else { return false }
        return hostnames.contains(host) || WebOrigin.isAddressLiteral(host)
    }

    /// Paths a machine's own probes call by address or by any name.
    static let anyHostPaths: Set<String> = ["/healthz", "/readyz", "/metrics"]
}

/// Answers 421 `misdirected_request` to a request whose `Host` this server does not serve
/// (`ServedHosts`), before anything else reads it.
package struct ServedHostsMiddleware: AsyncMiddleware {
    package let served: ServedHosts

    package init(served: ServedHosts) {
        self.served = served
    }

    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        if let host = request.headers.first(name: .host), !served.serves(hostHeader: host),
           !ServedHosts.anyHostPaths.contains(request.url.path) {
            throw AppError(.misdirectedRequest, "misdirected_request")
        }
        return try await next.respond(to: request)
    }
}

extension Request {
    /// Whether the client reached us over https: a trusted proxy's `X-Forwarded-Proto` says so
    /// (this server itself speaks plain http).
    package var cameOverHTTPS: Bool {
        guard let peer = remoteAddress?.ipAddress, application.settings.trustedProxies.contains(peer) else { return false }
        return headers.first(name: "X-Forwarded-Proto")?.lowercased() == "https"
    }

    /// Whether `origin` is one of this site's: the host and port the request was sent to (its
    /// `Host`, whose missing port is the default of the origin's scheme: one port speaks one
    /// scheme, and this server cannot see the TLS a proxy ended), `PUBLIC_URL`'s origin, or one of
    /// `SERVED_HOSTS`. In production a `Host` we do not serve never gets this far (421).
    func isOwnOrigin(_ origin: WebOrigin) -> Bool {
        if let host = headers.first(name: .host), let (name, port) = WebOrigin.hostAndPort(host),
           name == origin.host, (port ?? WebOrigin.defaultPort(origin.scheme)) == origin.port {
            return true
        }
        if let publicOrigin = WebOrigin(application.settings.publicURL), origin == publicOrigin { return true }
        return application.settings.servedHosts?.origins.contains(origin) ?? false
    }
}
