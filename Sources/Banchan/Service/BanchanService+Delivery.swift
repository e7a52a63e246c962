import Foundation
package import Platform
import Vapor

/// Where orders go: an account's saved addresses, and the delivery a checkout asks for.
extension BanchanService {
    // MARK: Saved addresses

    /// The signed-in account's addresses (401 for a device without one: addresses are kept per account).
    func addresses(of owner: Principal) async throws -> [BanchanStore.SavedAddress] {
        try await store.addresses(of: try Self.account(owner))
    }

    func address(_ id: UUID, of owner: Principal) async throws -> BanchanStore.SavedAddress {
        guard let saved = try await store.address(id, of: try Self.account(owner)) else { throw AppError.notFound("address_not_found") }
        return saved
    }

    func saveAddress(_ address: Delivery.Address, of owner: Principal, makeDefault: Bool) async throws -> BanchanStore.SavedAddress {
        let user = try Self.account(owner)
        return try await addressBookWrite(by: user) { try await store.saveAddress(address, of: user, makeDefault: makeDefault, now: environment.now()) }
    }

    /// 404 `address_not_found` for one that is not the account's.
    func changeAddress(_ id: UUID, of owner: Principal, to address: Delivery.Address, makeDefault: Bool) async throws -> BanchanStore.SavedAddress {
        let user = try Self.account(owner)
        return try await addressBookWrite(by: user) {
            guard let saved = try await store.changeAddress(id, of: user, to: address, makeDefault: makeDefault) else {
                throw AppError.notFound("address_not_found")
            }
            return saved
        }
    }

    func removeAddress(_ id: UUID, of owner: Principal) async throws {
        let user = try Self.account(owner)
        try await addressBookWrite(by: user) {
            guard try await store.removeAddress(id, of: user) else { throw AppError.notFound("address_not_found") }
        }
    }

    /// Every change to an address book takes a slot of its account's budget first (the probe made
    /// 300 changes in 2.9 s); a refused change gives it back.
    private func addressBookWrite<T>(by user: UUID, _ work: () async throws -> T) async throws -> T {
        try await environment.limits.addressBookWrites.withSlot(user.uuidString, code: "too_many_address_changes", work)
    }

    private static func account(_ owner: Principal) throws -> UUID {
        guard let user = owner.userID else { throw AppError.unauthorized }
        return user
    }

    // MARK: Checkout

    /// The delivery an API checkout asks for: a saved address of the account's (`addressId`) or the
    /// fields sent, checked (422 `invalid_recipient`, `invalid_phone`, …).
    func deliveryRequest(_ input: DeliveryInput, paymentMethod: Delivery.PaymentMethod, for owner: Principal) async throws -> DeliveryRequest {
        let address: Delivery.Address
        if let raw = input.addressId, !raw.isEmpty {
            guard let id = UUID(uuidString: raw) else { throw AppError.notFound("address_not_found") }
            address = try await self.address(id, of: owner).delivery
        } else {
            address = try Delivery.Address.validated(recipient: input.recipient, phone: input.phone, postcode: input.postcode,
                                                   address: input.address, addressDetail: input.addressDetail)
        }
        return try DeliveryRequest.validated(address: address, slot: input.slot, note: input.note, paymentMethod: paymentMethod)
    }

    /// Which ways these dishes can all travel (both unless one of them cannot).
    func slots(for dishes: [Dish]) -> [Delivery.Slot] {
        Delivery.Slot.allCases.filter { slot in dishes.allSatisfy { $0.deliveryTypes.contains(slot.dishType) } }
    }
}

extension DeliveryProblem {
    /// 422 with the field's code (`invalid_phone`), its message in the reader's language.
    var appError: AppError { AppError.invalid(code) }
}

extension Delivery.Address {
    /// `checked`, a broken rule as the app's error (422 naming the field).
    static func validated(recipient: String?, phone: String?, postcode: String?, address: String?, addressDetail: String?) throws -> Delivery.Address {
        do { return try checked(recipient: recipient, phone: phone, postcode: postcode, address: address, addressDetail: addressDetail) } catch { throw error.appError }
    }
}

extension DeliveryRequest {
    /// The request, a broken rule as the app's error.
    static func validated(address: Delivery.Address, slot: Delivery.Slot, note: String?, paymentMethod: Delivery.PaymentMethod) throws -> DeliveryRequest {
        do { return try DeliveryRequest(address: address, slot: slot, note: note, paymentMethod: paymentMethod) } catch { throw error.appError }
    }
}

/// What one account may repeat in the shop: every write a person can repeat has a rate (on
/// PostgreSQL counted in the shared table, so instances share them).
package struct BanchanLimits: Sendable {
    /// Saves, edits and removals of saved addresses: a person moving house, not a script.
    package let addressBookWrites: RateLimiter

    package init(shared: SharedBudgets?) {
        addressBookWrites = RateLimiter(name: "banchan_address_writes", limit: 60, window: 3600, shared: shared)
    }
}

