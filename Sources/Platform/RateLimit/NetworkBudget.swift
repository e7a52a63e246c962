public import Vapor

/// A budget per client network (`ClientNetwork`): `limit` events per `window` for one IPv4
/// address or IPv6 /64, and `limit × ClientNetwork.wideFactor` for the IPv6 /48 around it. Both
/// are taken before the work they guard and given back together (`RateLimiter`'s rules), shared
/// by the instances on PostgreSQL.
public final class NetworkBudget: Sendable {
    public let name: String
    private let network: RateLimiter
    private let wide: RateLimiter

    public var limit: Int { network.limit }
    public var window: TimeInterval { network.window }

    package var clock: Now { network.clock }

    package init(name: String, limit: Int, window: TimeInterval, shared: SharedBudgets? = nil, clock: @escaping Now = WallClock.now) {
        self.name = name
        network = RateLimiter(name: name, limit: limit, window: window, shared: shared, clock: clock)
        let (wideLimit, overflow) = limit.multipliedReportingOverflow(by: ClientNetwork.wideFactor)
        wide = RateLimiter(name: name + "_48", limit: overflow ? Int.max : wideLimit, window: window, shared: shared, clock: clock)
    }

    /// The slots `reserve` took: the network's, and the /48's for IPv6.
    public struct Slot: Sendable {
        fileprivate let network: RateLimiter.Slot
        fileprivate let wide: RateLimiter.Slot?
    }

    /// Takes a slot for `client`, or answers the seconds to wait when its network's or its /48's
    /// window is full.
    public func tryReserve(_ client: ClientNetwork, now: Date) async throws -> Result<Slot, RateLimiter.Wait> {
        let taken: RateLimiter.Slot
        switch try await network.tryReserve(client.key, now: now) {
        case .success(let slot): taken = slot
        case .failure(let wait): return .failure(wait)
        }
        guard let wideKey = client.wideKey else { return .success(Slot(network: taken, wide: nil)) }
        do {
            switch try await wide.tryReserve(wideKey, now: now) {
            case .success(let slot): return .success(Slot(network: taken, wide: slot))
            case .failure(let wait):
                await network.release(taken)
                return .failure(wait)
            }
        } catch {
            await network.release(taken)
            throw error
        }
    }

    /// Gives both slots back (what they guarded did not happen, or does not count).
    public func release(_ slot: Slot) async {
        await network.release(slot.network)
        if let wideSlot = slot.wide { await wide.release(wideSlot) }
    }
}

extension NetworkBudget: SlotBudget {}
