import Foundation
import Platform

/// Closed groups whose result is frozen, by PIN: the result page, its polls and the result API
/// read the group on every view, and such a group never changes again (`MenuGroupStore`'s writes
/// all need it open, or its result still empty). It goes only when the prune deletes it, a
/// day after its last activity, which is also when `MenuGameService` stops showing it: a kept
/// group is trusted only until `margin` before that, so a PIN drawn again after the prune (on any
/// instance, whatever its clock) is never answered with the old group. Nothing to announce.
final class FrozenGroups: Sendable {
    private let memory: BoundedMemory<String, GroupRow>
    /// How long before its expiry a kept group is read again instead (clocks of instances differ).
    static let margin: TimeInterval = 600

    init(capacity: Int = 4_096) {
        memory = BoundedMemory(name: "frozen_menu_groups", capacity: capacity)
    }

    /// The kept group of this PIN while it is still well within `lifetime` of its last activity.
    func group(pin: String, alive lifetime: TimeInterval, now: Date) -> GroupRow? {
        guard let group = memory[pin] else { return nil }
        guard group.lastActivityAt > now.addingTimeInterval(-(lifetime - Self.margin)) else {
            memory.forget(pin)
            return nil
        }
        return group
    }

    var generation: UInt64 { memory.generation }

    /// Keeps the group if it is closed with its result frozen (an open one changes).
    func keep(_ group: GroupRow, readAt generation: UInt64) {
        guard group.closedAt != nil, group.result != nil else { return }
        memory.keep(group, for: group.pin, readAt: generation)
    }
}
