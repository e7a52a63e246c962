import NIOConcurrencyHelpers
package import Vapor

/// What features hand from a device to an account when someone signs in on it: a visitor's cart
/// joins the account's cart (the shop). Accounts calls every handler at each sign-in (web login
/// and sign-up pages with the browser's device, the API's login and sign-up with
/// `X-Device-Token`); features register theirs at configure, so Accounts names none of them.
/// A handler's failure is logged and never stops the sign-in.
package final class DeviceHandOvers: Sendable {
    package typealias Handler = @Sendable (_ device: Principal, _ account: Principal, _ request: Request) async throws -> Void

    private let handlers = NIOLockedValueBox<[Handler]>([])

    package func register(_ handler: @escaping Handler) {
        handlers.withLockedValue { $0.append(handler) }
    }

    /// Hands what `device` holds to `account`.
    func handOver(from device: Principal, to account: Principal, _ request: Request) async {
        for handler in handlers.withLockedValue({ $0 }) {
            do { try await handler(device, account, request) } catch {
                request.logger.warning("a device's things were not handed to the account at sign-in: \(error)")
            }
        }
    }
}

extension Application {
    private struct DeviceHandOversKey: StorageKey, LockKey { typealias Value = DeviceHandOvers }

    package var deviceHandOvers: DeviceHandOvers {
        locks.lock(for: DeviceHandOversKey.self).withLock {
            if let existing = storage[DeviceHandOversKey.self] { return existing }
            let handOvers = DeviceHandOvers()
            storage[DeviceHandOversKey.self] = handOvers
            return handOvers
        }
    }
}

extension Request {
    /// Which device a sign-in hands over: the JSON API's only by an explicit `X-Device-Token`
    /// (a page of another port or subdomain could otherwise log the browser into someone else's
    /// account and hand them the visitor's cart); the pages' by the browser's device cookie.
    package enum DeviceHandOverSource: Sendable {
        case header
        case browserCookie
    }

    /// After a sign-in to the account `accountID`: what this request's device held becomes the
    /// account's (the device `source` names, when there is one).
    package func handDeviceOver(to accountID: UUID?, from source: DeviceHandOverSource) async {
        let device: Principal?
        switch source {
        case .header:
            device = (try? deviceTokenHeader()).flatMap { $0 }.map { .device($0) }
        case .browserCookie:
            device = (cookies[BrowserDevice.cookieName]?.string).flatMap({ try? DeviceToken.validate($0) }).map { .device($0) }
        }
        guard let device, let id = accountID else { return }
        await application.deviceHandOvers.handOver(from: device, to: .user(id), self)
    }
}
