import Accounts
package import Fluent
import NIOConcurrencyHelpers
import Platform
import Vapor

extension Request {
    /// The group named by the `:pin` in the URL. Misses count against the caller's address,
    /// and a caller over the limit is refused before the look-up.
    package func menuGroupFromPath() async throws -> GroupRow {
        try await menuGroup(pin: parameters.get("pin") ?? "")
    }

    /// The group with this PIN (typed into a form, or from a path), counted like any PIN look-up.
    func menuGroup(pin: String) async throws -> GroupRow {
        try await lookUpPIN(pin) { try await menuGame.group(pin: pin) }
    }

    /// The waiting-room state of the group in the path, for polling clients (mostly from memory).
    package func menuGroupStatusFromPath(device: String?) async throws -> GroupStatus {
        let pin = parameters.get("pin") ?? ""
        return try await lookUpPIN(pin) { try await menuGame.pollStatus(pin: pin, device: device) }
    }

    /// Every PIN look-up runs inside budgets of misses (`GuessLimiter`), so parallel guesses cannot
    /// slip past them while found PINs are never limited: the device's own (20 a minute, when the
    /// request shows one) and its network's, wide enough for a classroom (`pinMissesPerNetwork`).
    /// A PIN this network created or found in the last hour (the class's own room) is answered
    /// without either: one guessing phone never locks its classmates out of the right PIN.
    private func lookUpPIN<Found>(_ pin: String, _ lookUp: () async throws -> Found?) async throws -> Found {
        let network = clientNetwork.key, known = application.pinsSeenOnNetworks, now = application.menuGameEnvironment.now()
        if known.contains(pin, on: network, now: now) {
            guard let found = try await lookUp() else { throw AppError.notFound("group_not_found") }
            return found
        }
        let perNetwork = application.pinMissesPerNetwork
        let found: Found?
        if let device = pinGuesser {
            found = try await application.pinMisses.guess(device, code: "too_many_pin_lookups") {
                try await perNetwork.guess(network, code: "too_many_pin_lookups", lookUp)
            }
        } else {
            found = try await perNetwork.guess(network, code: "too_many_pin_lookups", lookUp)
        }
        guard let found else { throw AppError.notFound("group_not_found") }
        known.note(pin, on: network, now: now)
        return found
    }

    /// Who is looking PINs up, when the request shows it: the signed-in account, the API's
    /// `X-Device-Token`, the 우리뭐먹지 app's `token`, or the browser's device cookie. Nil for a
    /// client that shows none (the app's `GET /group/{pin}`): its network's budget alone counts.
    private var pinGuesser: String? {
        if let user = auth.get(User.self)?.id { return "account:" + user.uuidString }
        if let token = headers.first(name: "X-Device-Token") ?? query[String.self, at: "token"] ?? cookie(BrowserDevice.cookieName),
           !token.isEmpty, token.utf8.count <= 512 {
            return "device:" + SecureRandom.sha256Hex(token)
        }
        return nil
    }

    /// Opens a group hosted by this device within the room budgets: per network (`roomsPerNetwork`,
    /// a classroom's groups and then some) and per host (`roomsPerHost`); a refused room is 429
    /// `too_many_rooms` with `Retry-After`, and a room that could not be made gives its slots back.
    /// `hostIsNetwork`: the host has no device of its own (the 우리뭐먹지 app without a push token is
    /// known by its network), so the network's budget is its only one — a class of such phones
    /// behind one address shares the network's 60, not one host's 10.
    package func createMenuGroup(hostToken: String, hostUserID: UUID?, hostIsNetwork: Bool = false) async throws -> GroupRow {
        let host = hostUserID.map { "account:" + $0.uuidString } ?? "device:" + SecureRandom.sha256Hex(hostToken)
        let application = application, network = clientNetwork, game = menuGame
        return try await application.roomsPerNetwork.withSlot(network, code: "too_many_rooms") {
            let create = {
                let group = try await game.createGroup(hostToken: hostToken, hostUserID: hostUserID)
                application.pinsSeenOnNetworks.note(group.pin, on: network.key, now: application.menuGameEnvironment.now())
                return group
            }
            if hostIsNetwork && hostUserID == nil { return try await create() }
            return try await application.roomsPerHost.withSlot(host, code: "too_many_rooms") { try await create() }
        }
    }
}

/// The PINs each network created or found lately (an hour), in this process: the classroom's own
/// room, which its network's budget of misses never refuses.
package final class PINsSeenOnNetworks: Sendable {
    static let lifetime: TimeInterval = 3600
    private let seen = NIOLockedValueBox<[String: [String: Date]]>([:])

    package init() {}

    func note(_ pin: String, on network: String, now: Date) {
        seen.withLockedValue { all in
            all[network, default: [:]][pin] = now
            // At most a few dozen PINs a network, and networks forgotten when idle.
            if all[network]!.count > 64 { all[network] = all[network]!.filter { now.timeIntervalSince($0.value) < Self.lifetime } }
            if all.count > 10_000 { all = all.filter { $0.value.values.contains { now.timeIntervalSince($0) < Self.lifetime } } }
        }
    }

    func contains(_ pin: String, on network: String, now: Date) -> Bool {
        seen.withLockedValue { all in all[network]?[pin].map { now.timeIntervalSince($0) < Self.lifetime } ?? false }
    }
}
