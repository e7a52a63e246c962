import Foundation
import Mates
import Platform
import Vapor

/// The cookie that binds a 새싹 app's chat socket to its uid from any network.
///
/// Every `/v1` answer to a signed-in app call sets it: HttpOnly, `Path=/`, a MAC over the uid and
/// an expiry (`ServerKeys.socketBinding`), valid for `lifetime` and renewed by every call. The apps'
/// HTTP client (Alamofire's default session) keeps `Set-Cookie` in the shared `HTTPCookieStorage`,
/// and socket.io-client-swift and Starscream put that store's cookies for the server on the
/// WebSocket and polling handshakes: so the phone's own socket shows whose it is, whichever network
/// it opens from, while a stranger who knows only the uid (search results show it) holds no cookie.
enum SesacSocketBinding {
    static let cookieName = "wwe_sesac_socket"
    /// A day: the apps call `/v1` whenever a screen opens, so a phone in use always holds a fresh one.
    static let lifetime: TimeInterval = 24 * 3600

    /// `<uid in base64url>.<expiry in Unix seconds>.<MAC>`.
    static func value(uid: String, key: SymmetricKey, now: Date) -> String {
        let encodedUID = Data(uid.utf8).base64URLEncodedString()
        let expiry = String(Int(now.addingTimeInterval(lifetime).timeIntervalSince1970))
        return encodedUID + "." + expiry + "." + ServerKeys.mac(key, "sesac-socket", encodedUID, expiry)
    }

    /// The uid a cookie this server made names, while it has not expired; nil otherwise.
    static func uid(in value: String, key: SymmetricKey, now: Date) -> String? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard value.utf8.count <= 512, parts.count == 3, let expiry = Int(parts[1]),
              SecureRandom.constantTimeEquals(parts[2], ServerKeys.mac(key, "sesac-socket", parts[0], parts[1])),
              Double(expiry) > now.timeIntervalSince1970,
              let data = Data(base64URLEncoded: parts[0]), let uid = String(data: data, encoding: .utf8), !uid.isEmpty
        else { return nil }
        return uid
    }

    /// The uid the binding cookie of a socket's handshake names, when it is valid.
    static func uid(in headers: HTTPHeaders, key: SymmetricKey, now: Date) -> String? {
        guard let cookie = headers.cookie?[cookieName]?.string else { return nil }
        return uid(in: cookie, key: key, now: now)
    }

    /// The cookie for a `/v1` answer to `uid`'s call. `Secure` when the call itself came over
    /// https (a rebuilt app on https); the unchanged apps speak plain http on port 1210, where a
    /// `Secure` cookie would never be sent back.
    static func cookie(uid: String, _ request: Request) -> HTTPCookies.Value {
        HTTPCookies.Value(string: value(uid: uid, key: request.application.keys.socketBinding, now: request.application.matesEnvironment.now()), maxAge: Int(lifetime), path: "/",
                          isSecure: request.cameOverHTTPS, isHTTPOnly: true, sameSite: .lax)
    }
}

private struct SocketBindingUIDKey: StorageKey { typealias Value = String }

extension Request {
    /// The app user this call was made as: its answer carries the binding cookie.
    var socketBindingUID: String? {
        get { storage[SocketBindingUIDKey.self] }
        set { storage[SocketBindingUIDKey.self] = newValue }
    }
}
