/// How many values one statement binds at most when it lists ids (`IN (…)`) or rows: within every
/// database's limit on binds (SQLite's 32,766, PostgreSQL's 65,535) with room for the rest.
package enum StatementLimits {
    package static let bindsPerStatement = 500
}

extension Array {
    /// The elements in runs of at most `size` (`StatementLimits.bindsPerStatement` ids, or that
    /// many binds' worth of rows).
    package func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
