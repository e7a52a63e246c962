import Fluent
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
        try await lookUpPIN { try await menuGame.group(pin: pin) }
    }

    /// The waiting-room state of the group in the path, for polling clients (mostly from memory).
    package func menuGroupStatusFromPath(device: String?) async throws -> GroupStatus {
        let pin = parameters.get("pin") ?? ""
        return try await lookUpPIN { try await menuGame.pollStatus(pin: pin, device: device) }
    }

    /// Every PIN look-up runs inside the address's budget of misses (`GuessLimiter`), so parallel
    /// guesses cannot slip past it while found PINs are never limited.
    private func lookUpPIN<Found>(_ lookUp: () async throws -> Found?) async throws -> Found {
        guard let found = try await application.pinMisses.guess(clientNetwork.key, code: "too_many_pin_lookups", lookUp) else {
            throw AppError.notFound("group_not_found")
        }
        return found
    }
}
