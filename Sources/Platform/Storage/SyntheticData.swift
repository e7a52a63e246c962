import Foundation
import SQLKit

/// Rows for synthetic data sets (`whatweeat seed --places … --mates …`), written many per statement.
package enum SyntheticRows {
    package static func insert(into table: String, _ columns: [String], _ rows: [[any SQLExpression]], on sql: any SQLDatabase) async throws {
        let builder = sql.insert(into: table).columns(columns)
        for row in rows { builder.values(row) }
        try await builder.run()
    }
}

/// A small, fast, repeatable random generator (SplitMix64).
package struct SplitMix {
    private var state: UInt64
    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    package mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Standard normal (Box–Muller).
    package mutating func gaussian() -> Double {
        let u = max(unit(), 1e-12), v = unit()
        return sqrt(-2 * log(u)) * cos(2 * .pi * v)
    }
}
