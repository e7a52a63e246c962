import Fluent
import Mates
import NIOConcurrencyHelpers
import Platform
import Vapor

/// Where each 새싹 app uid calls from, and whether it holds its binding cookie: what the chat socket
/// (`MatesCompatSocket`) binds by. Each `/v1` call notes both; the memories below keep the writes few.
extension SesacAppService {
    /// Notes a signed-up uid's call, whose answer carries the binding cookie: first that the uid
    /// holds its cookie (`noteSocketCookieHanded`), then the network it calls from. The network is
    /// written unless the uid's last write on this instance was this same network, less than a
    /// minute ago (the apps poll); the sighting is announced on every call, so a socket waiting on
    /// this network hears of it whatever was written.
    func noteAppSighting(_ appUser: MatesAppUser, address: String) async throws {
        try await noteAppSighting(uid: appUser.uid, address: address)
    }

    private func noteAppSighting(uid: String, address: String) async throws {
        let now = self.now
        let network = ClientNetwork(address: address).key
        // Before the sighting is announced: a socket waiting for it then sees that the uid holds a cookie.
        try await noteSocketCookieHanded(uid: uid)
        if application.appSightings.shouldWrite(uid: uid, network: network, now: now) {
            try await appUsers.noteSighting(uid: uid, network: network, at: now)
        }
        await events.publish(network, to: Self.appSightingTopic(uid))
    }

    /// Notes that `uid`'s answers carry its binding cookie: from then on its chat socket binds by
    /// cookie or token only, never by network (`MatesCompatSocket`). Written once, the first time
    /// (`appSocketCookies` remembers the uids known to hold one, per instance); that first time the
    /// uid's sockets bound by network, or waiting, are let go (`MatesCompatSocket.cookieHandedMessage`).
    func noteSocketCookieHanded(uid: String) async throws {
        let memory = application.appSocketCookies
        guard !memory.knows(uid) else { return }
        if try await appUsers.noteSocketCookieHanded(uid: uid, at: now) {
            await events.publish(MatesCompatSocket.cookieHandedMessage, to: MatesCompatSocket.bindingTopic(uid))
        }
        memory.remember(uid)
    }

    enum AppFastState { case unknown, searching, other }

    /// `myQueueState`'s common case from memory: whether the uid signed up (`appAccount`) and
    /// searches now (`MatesStore.record`), the sighting noted as every call notes it. `other` sends
    /// the caller down the full path.
    func appSearchingFastPath(uid: String, address: String) async throws -> AppFastState {
        guard let account = try await appAccount(uid: uid) else { return .unknown }
        try await noteAppSighting(uid: uid, address: address)
        return try await store.snapshot(account)?.state == .searching ? .searching : .other
    }

    /// The account of a signed-up uid, noting its sighting (`sesacAppUserID`).
    func appAccountNotingSighting(uid: String, address: String) async throws -> UUID? {
        guard let account = try await appAccount(uid: uid) else { return nil }
        try await noteAppSighting(uid: uid, address: address)
        return account
    }

    /// The network (`ClientNetwork`) `uid` called `/v1` from most recently, within
    /// `appSightingLifetime`; nil when none. A chat socket without the binding cookie binds by
    /// network only on this one: a network the uid merely used earlier in the day (a café, a
    /// classroom) binds nobody.
    func appLatestNetwork(uid: String) async throws -> String? {
        try await appUsers.latestNetwork(of: uid, since: now.addingTimeInterval(-Self.appSightingLifetime))
    }

    /// Forgets the networks of sightings older than `appSightingLifetime` (nothing reads them).
    func pruneAppSightings() async throws -> Int {
        try await appUsers.pruneSightings(before: now.addingTimeInterval(-Self.appSightingLifetime))
    }

    /// Forgets the networks of every app uid of `account` (the account's deletion), in `database`
    /// (the deleting transaction).
    static func forgetAppSightings(ofAccount account: UUID, on database: any Database) async throws {
        try await AppUserStore(database: database).forgetSightings(ofAccount: account)
    }

    /// Forgets every network of `uid` (its withdrawal).
    func forgetAppSightings(uid: String) async throws {
        try await appUsers.forgetSightings(uid: uid)
    }
}

/// The network each app uid was last written on by this instance, and when: a call from that same
/// network within a minute is not written again (the apps poll). A call from any other network is
/// written, so the uid's latest network in the database is the one it called from last (a phone
/// that went from A to B and back to A within a minute is on A).
final class AppSightings: Sendable {
    private struct Written: Sendable {
        let network: String
        let at: Date
    }

    private let written = NIOLockedValueBox<[String: Written]>([:])

    func shouldWrite(uid: String, network: String, now: Date) -> Bool {
        written.withLockedValue { table in
            if let last = table[uid], last.network == network, now.timeIntervalSince(last.at) < 60, now >= last.at { return false }
            if table.count > 100_000 { table.removeAll() }
            table[uid] = Written(network: network, at: now)
            return true
        }
    }
}

/// The uids this instance knows were handed their binding cookie (`SesacAppService.noteSocketCookieHanded`):
/// the database is written once per uid, not at every call. A uid forgotten (the table is cleared
/// past 100,000) is only written again, and a write that finds it marked changes nothing.
final class AppSocketCookies: Sendable {
    private let handed = NIOLockedValueBox<Set<String>>([])

    func knows(_ uid: String) -> Bool { handed.withLockedValue { $0.contains(uid) } }

    func remember(_ uid: String) {
        handed.withLockedValue { handed in
            if handed.count > 100_000 { handed.removeAll() }
            handed.insert(uid)
        }
    }

    /// Forgets `uid` (its withdrawal: its row goes).
    func forget(_ uid: String) { _ = handed.withLockedValue { $0.remove(uid) } }
}

extension Application {
    private struct AppSightingsKey: StorageKey { typealias Value = AppSightings }

    /// Set by `MatesFeature.configure`.
    var appSightings: AppSightings {
        get { storage[AppSightingsKey.self] ?? AppSightings() }
        set { storage[AppSightingsKey.self] = newValue }
    }

    private struct AppSocketCookiesKey: StorageKey { typealias Value = AppSocketCookies }

    /// Set by `SesacStudyAppLayer.configure`.
    var appSocketCookies: AppSocketCookies {
        get { storage[AppSocketCookiesKey.self] ?? AppSocketCookies() }
        set { storage[AppSocketCookiesKey.self] = newValue }
    }
}
