extension Array {
    /// The elements in runs of at most `size`: lists of ids bound into one statement's `IN (…)`
    /// stay within every database's limit on binds.
    package func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
