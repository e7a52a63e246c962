import Logging
import NIOConcurrencyHelpers

/// Every line a logger was asked to write, with its metadata.
final class RecordedLines: Sendable {
    /// A logger writing here.
    func logger(_ label: String = "recorded") -> Logger { Logger(label: label, factory: handler) }

    func contains(_ text: String) -> Bool { lines.withLockedValue { $0.contains { $0.contains(text) } } }

    let lines = NIOLockedValueBox<[String]>([])
    func handler(label: String) -> some LogHandler { Handler(lines: self, logLevel: .trace) }

    struct Handler: LogHandler {
        let lines: RecordedLines
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            lines.lines.withLockedValue { $0.append("\(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })") }
        }
    }
}
