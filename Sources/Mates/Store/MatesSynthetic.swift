import Accounts
import Fluent
import Foundation
import Platform
import SQLKit

/// `whatweeat seed --synthetic --mates N --mate-pairs P`: verified people searching around Seoul
/// (a city's worth of them, for the `/nearby` benchmark) and pairs already matched (for the chat
/// socket benchmark). Accounts are `mate-{seed}-{i}@synthetic.whatweeat.invalid`, matched ones
/// `pair-{seed}-{i}@…` (pair k is `2k` and `2k+1`). Random but repeatable.
package struct MatesSynthetic {
    let searching: Int
    let pairs: Int
    let seed: UInt64
    /// Spread of positions around City Hall, in degrees (≈ 0.1° is 11 km: the city).
    static let spread = 0.1
    static let topics = ["알고리즘", "Swift", "iOS 면접", "점심", "저녁", "카공", "영어 회화", "토익", "코딩 테스트", "독서", "러닝", "떡볶이"]

    package static func email(searching index: Int, seed: UInt64) -> String { "mate-\(seed)-\(index)@synthetic.whatweeat.invalid" }
    static func email(paired index: Int, seed: UInt64) -> String { "pair-\(seed)-\(index)@synthetic.whatweeat.invalid" }

    func fill(_ database: any Database, passwordHash: String, now: Date) async throws {
        var random = SplitMix(seed: seed &+ 7)
        let stamp = now.wholeMicroseconds
        let sql = database.sql
        func uniform(_ random: inout SplitMix) -> Double { Double(random.next() >> 11) / Double(1 << 53) }

        // Accounts: the searching people, then the pairs.
        let total = searching + pairs * 2
        var ids: [UUID] = []
        ids.reserveCapacity(total)
        // Multi-row inserts within SQLite's 32,766 bound values per statement.
        for start in stride(from: 0, to: total, by: 4_000) {
            let end = min(total, start + 4_000)
            var rows: [[any SQLExpression]] = []
            for index in start..<end {
                let id = UUID()
                ids.append(id)
                let paired = index >= searching
                let email = paired ? Self.email(paired: index - searching, seed: seed) : Self.email(searching: index, seed: seed)
                let nickname = paired ? "짝꿍\(seed)-\(index - searching)" : "새싹\(seed)-\(index)"
                rows.append(AccountStore.syntheticRow(id: id, email: email, passwordHash: passwordHash, nickname: nickname, createdAt: stamp))
            }
            try await AccountStore.insertSynthetic(rows, on: sql)
        }

        // Profiles: verified, with a birth year and topics; searching ones at a position.
        typealias Column = MatesStore.ProfileColumn
        let columns = [Column.id, Column.gender, Column.birthYear, Column.topicsJSON, Column.searchable, Column.ageMin, Column.ageMax,
                       Column.avatar, Column.background] + Column.reputation
            + [Column.state, Column.lat, Column.lon, Column.queueTopicsJSON, Column.queuedAt, Column.matchID, Column.verifiedChannel,
               Column.verifiedDestinationHash, Column.verifiedMasked, Column.createdAt, Column.updatedAt]
        var matchIDs: [UUID] = []
        for _ in 0..<pairs { matchIDs.append(UUID()) }
        for start in stride(from: 0, to: total, by: 1_000) {
            let end = min(total, start + 1_000)
            var rows: [[any SQLExpression]] = []
            for index in start..<end {
                let paired = index >= searching
                let topics = (0..<(1 + Int(random.next() % 3))).map { _ in Self.topics[Int(random.next() % UInt64(Self.topics.count))] }
                let topicsJSON = MatesProfile.encodeList(Array(Set(topics)).sorted())
                let lat = MatesPlacesCentre.lat + (uniform(&random) * 2 - 1) * Self.spread
                let lon = MatesPlacesCentre.lon + (uniform(&random) * 2 - 1) * Self.spread * 1.2
                let birthYear = 1970 + Int(random.next() % 36)
                rows.append([
                    SQLBind(ids[index]), SQLBind(["male", "female"][Int(random.next() % 2)]), SQLBind(birthYear), SQLBind(topicsJSON), SQLBind(true),
                    SQLBind(18), SQLBind(65), SQLBind(Int(random.next() % 5)), SQLBind(Int(random.next() % 8)),
                    SQLBind(Int(random.next() % 9)), SQLBind(Int(random.next() % 9)), SQLBind(Int(random.next() % 9)),
                    SQLBind(Int(random.next() % 9)), SQLBind(Int(random.next() % 9)), SQLBind(Int(random.next() % 9)),
                    SQLBind(paired ? MatesState.matched.rawValue : MatesState.searching.rawValue),
                    paired ? SQLLiteral.null : SQLBind(lat), paired ? SQLLiteral.null : SQLBind(lon),
                    paired ? SQLLiteral.null : SQLBind(topicsJSON), paired ? SQLLiteral.null : SQLBind(stamp),
                    paired ? SQLBind(matchIDs[(index - searching) / 2]) : SQLLiteral.null,
                    SQLBind("phone"), SQLBind(SecureRandom.sha256Hex("synthetic:\(seed):\(index)")), SQLBind("010-****-0000"),
                    SQLBind(stamp), SQLBind(stamp),
                ])
            }
            try await SyntheticRows.insert(into: MatesProfile.schema, columns, rows, on: sql)
        }
        var matchRows: [[any SQLExpression]] = []
        for pair in 0..<pairs {
            matchRows.append([SQLBind(matchIDs[pair]), SQLBind(ids[searching + pair * 2]), SQLBind(ids[searching + pair * 2 + 1]), SQLBind(stamp)])
        }
        for start in stride(from: 0, to: matchRows.count, by: 5_000) {
            try await SyntheticRows.insert(into: MatesStore.Table.matches, [MatesStore.MatchColumn.id, .userA, .userB, .createdAt],
                                                Array(matchRows[start..<min(matchRows.count, start + 5_000)]), on: sql)
        }
    }

    init(searching: Int, pairs: Int, seed: UInt64) {
        self.searching = searching
        self.pairs = pairs
        self.seed = seed
    }
}

/// Where synthetic mates gather: Seoul City Hall.
enum MatesPlacesCentre {
    static let lat = 37.5665
    static let lon = 126.9780
}
