package import Logging
package import NIOConcurrencyHelpers

/// Every line a logger was asked to write, with its metadata.
package final class RecordedLines: Sendable {
    package init() {}

    /// A logger writing here.
    package func logger(_ label: String = "recorded") -> Logger { Logger(label: label, factory: handler) }

    package func contains(_ text: String) -> Bool { lines.withLockedValue { $0.contains { $0.contains(text) } } }

    package let lines = NIOLockedValueBox<[String]>([])
    package func handler(label: String) -> some LogHandler { Handler(lines: self, logLevel: .trace) }

    package struct Handler: LogHandler {
        package let lines: RecordedLines
        package var logLevel: Logger.Level
        package var metadata: Logger.Metadata = [:]
        package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        package func log(event: LogEvent) {
            lines.lines.withLockedValue { $0.append("\(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })") }
        }
    }
}
