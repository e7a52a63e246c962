import Foundation
package import Logging

/// What an operator's logs hold (issue 58, item 5): text (swift-log's) or JSON, one object per
/// line (`LOG_FORMAT=json`); never a code, token, password hash, whole e-mail address or phone
/// number, at any level (`LogRedaction`), but for the deliberate line of a development server
/// without mail or SMS, which shows a code or link so its developer can sign in.
package enum OperatorLogs {
    /// The handler `main` bootstraps: the format chosen, behind the redaction.
    package static func handler(label: String, settings: Settings) -> any LogHandler {
        let inner: any LogHandler
        if settings.logFormat == .json {
            inner = JSONLogHandler(label: label, instance: settings.instanceName)
        } else {
            inner = StreamLogHandler.standardOutput(label: label)
        }
        var handler = RedactingLogHandler(inner, allowsDeliberateLines: settings.appEnvironment != .production)
        handler.logLevel = settings.logLevel
        return handler
    }

    /// Metadata that lets a line through unredacted: a development server's code or link, meant
    /// for its developer's eyes (a production server has no such line: it has no log senders).
    package static let deliberate: Logger.Metadata = ["deliberate": "shown to the developer"]
}

/// Scrubs what no log may hold from every line before it is written.
package struct RedactingLogHandler: LogHandler {
    private var inner: any LogHandler
    private let allowsDeliberateLines: Bool

    package init(_ inner: any LogHandler, allowsDeliberateLines: Bool) {
        self.inner = inner
        self.allowsDeliberateLines = allowsDeliberateLines
    }

    package var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    package var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    package func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                     file: String, function: String, line: UInt) {
        var metadata = metadata
        if metadata?.removeValue(forKey: "deliberate") != nil, allowsDeliberateLines {
            inner.log(level: level, message: message, metadata: metadata, source: source, file: file, function: function, line: line)
            return
        }
        let scrubbed = metadata?.mapValues(LogRedaction.scrub)
        inner.log(level: level, message: "\(LogRedaction.scrub(message.description))", metadata: scrubbed, source: source,
                  file: file, function: function, line: line)
    }
}

/// The patterns no log line keeps, each replaced by what an operator may see.
package enum LogRedaction {
    // NSRegularExpression is immutable once made and documented safe to use from any thread.
    nonisolated(unsafe) private static let rules: [(NSRegularExpression, @Sendable (String) -> String)] = [
        // bcrypt hashes.
        (regex(#"\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}"#), { _ in "[password hash]" }),
        // JSON Web Tokens (access tokens, Firebase ID tokens, App Store transactions).
        (regex(#"eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"#), { _ in "[token]" }),
        // Random tokens and hashes: long runs of base64url or hex (UUIDs are shorter).
        (regex(#"[A-Za-z0-9_-]{40,}"#), { _ in "[secret]" }),
        // E-mail addresses: the first letter and the domain stay.
        (regex(#"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+"#), { address in
            let parts = address.split(separator: "@", maxSplits: 1)
            return "\(parts[0].prefix(1))***@\(parts[1])"
        }),
        // Phone numbers: Korean mobile numbers however written, and any E.164 number.
        (regex(#"(\+82[ -]?|\b0)1[016789][ -]?\d{3,4}[ -]?\d{4}\b|\+\d{8,15}\b"#), { number in "***" + number.suffix(2) }),
    ]

    private static func regex(_ pattern: String) -> NSRegularExpression {
        // The patterns are constants of this file.
        try! NSRegularExpression(pattern: pattern)  // swiftlint:disable:this force_try
    }

    /// `text` without what no log keeps. Most lines hold none of it: a scan of their bytes
    /// decides that before any expression runs (the access log writes a line per request).
    package static func scrub(_ text: String) -> String {
        guard mightHoldSomething(text) else { return text }
        var result = text
        for (expression, replacement) in rules {
            let matches = expression.matches(in: result, range: NSRange(result.startIndex..., in: result))
            for match in matches.reversed() {
                guard let range = Range(match.range, in: result) else { continue }
                result.replaceSubrange(range, with: replacement(String(result[range])))
            }
        }
        return result
    }

    package static func scrub(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .string(let text): return .string(scrub(text))
        case .stringConvertible(let convertible): return .string(scrub(convertible.description))
        case .array(let values): return .array(values.map(scrub))
        case .dictionary(let values): return .dictionary(values.mapValues(scrub))
        }
    }

    /// An `@`, a `$`, a `+`, eight digits in a row or a run of 40 token characters.
    private static func mightHoldSomething(_ text: String) -> Bool {
        var digits = 0, tokenRun = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "@"), UInt8(ascii: "$"), UInt8(ascii: "+"): return true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                tokenRun += 1
                if digits >= 8 { return true }
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"):
                digits = 0
                tokenRun += 1
            case UInt8(ascii: "-"), UInt8(ascii: " "):
                // Numbers are written with these inside them (010-1234-5678); tokens use '-' too.
                if byte == UInt8(ascii: "-") { tokenRun += 1 } else { tokenRun = 0 }
            default:
                digits = 0
                tokenRun = 0
            }
            if tokenRun >= 40 { return true }
        }
        return false
    }
}

/// One JSON object per line: `time`, `level`, `message`, `label`, `instance`, and the line's
/// metadata (`request_id`, `route`, `status`, `duration_ms` …), for `jq` and log collectors.
package struct JSONLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info
    private let label: String
    private let instance: String?

    package init(label: String, instance: String?) {
        self.label = label
        self.instance = instance
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
                     file: String, function: String, line: UInt) {
        var fields: [(String, Logger.MetadataValue)] = self.metadata.merging(explicit ?? [:], uniquingKeysWith: { $1 })
            .map { ($0.key.replacingOccurrences(of: "-", with: "_"), $0.value) }
        fields += [("time", .string(Self.timestamp())), ("level", .string(level.rawValue)), ("message", .string(message.description)),
                   ("label", .string(label))]
        if let instance { fields.append(("instance", .string(instance))) }
        // Written by hand: JSONSerialization of a dictionary halved the requests a second the
        // access log let through (docs/PERFORMANCE.md, "Logs for operators").
        var line = "{"
        for (index, (key, value)) in fields.sorted(by: { $0.0 < $1.0 }).enumerated() {
            if index > 0 { line += "," }
            Self.write(.string(key), into: &line)
            line += ":"
            Self.write(value, into: &line)
        }
        line += "}\n"
        // One write per line: lines from several threads never interleave.
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    /// `value` as JSON: strings escaped as RFC 8259 asks, lists and objects (keys sorted) around them.
    static func write(_ value: Logger.MetadataValue, into line: inout String) {
        switch value {
        case .string(let text): escape(text, into: &line)
        case .stringConvertible(let convertible): escape(convertible.description, into: &line)
        case .array(let values):
            line += "["
            for (index, element) in values.enumerated() {
                if index > 0 { line += "," }
                write(element, into: &line)
            }
            line += "]"
        case .dictionary(let values):
            line += "{"
            for (index, key) in values.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                escape(key, into: &line)
                line += ":"
                write(values[key]!, into: &line)
            }
            line += "}"
        }
    }

    private static func escape(_ text: String, into line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20: line += String(format: "\\u%04x", scalar.value)
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }

    private static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private static func timestamp() -> String {
        timeStyle.format(WallClock.now())
    }
}
