import Foundation
package import SQLKit
package import Vapor

/// Rows for synthetic data sets (`whatweeat seed --places … --mates …`), written many per statement.
package enum SyntheticRows {
    package static func insert(into table: String, _ columns: [String], _ rows: [[any SQLExpression]], on sql: any SQLDatabase) async throws {
        let builder = sql.insert(into: table).columns(columns)
        for row in rows { builder.values(row) }
        try await builder.run()
    }

    package static func insert<Column: TableColumn>(into table: String, _ columns: [Column], _ rows: [[any SQLExpression]], on sql: any SQLDatabase) async throws {
        try await insert(into: table, columns.map(\.stringValue), rows, on: sql)
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

/// Generated data a feature adds for benchmarks. `whatweeat seed --synthetic` walks the feature
/// list and runs every generator whose options were given, or those that run by default when
/// none were (`--synthetic` alone fills the burger map).
package protocol SyntheticDataGenerator: Sendable {
    /// The `--name value` options this generator reads, with a line of help each.
    var options: [(name: String, help: String)] { get }
    /// Whether `--synthetic` without any generator's option runs this one.
    var runsByDefault: Bool { get }
    /// Adds the data; answers the line the command prints.
    func generate(_ app: Application, _ options: SyntheticOptions, console: any Console) async throws -> String
}

extension SyntheticDataGenerator {
    package var runsByDefault: Bool { false }
}

/// The options given to `seed --synthetic`, as text, checked by whoever reads them.
package struct SyntheticOptions: Sendable {
    package let values: [String: String]

    package init(values: [String: String]) {
        self.values = values
    }

    /// `--seed`, shared by every generator: the same seed makes the same data (default 1).
    package var seed: UInt64 { UInt64(max(0, Int(values["seed"] ?? "") ?? 1)) }

    package func string(_ name: String) -> String? { values[name] }

    package func has(_ name: String) -> Bool { values[name] != nil }

    /// A whole number in `range`; `fallback` when not given.
    package func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let raw = values[name] else { return fallback }
        guard let value = Int(raw), range.contains(value) else {
            throw CommandFailure(message: "--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
