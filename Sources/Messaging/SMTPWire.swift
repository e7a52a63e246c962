import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Platform

// What travels over an SMTP connection: addresses, the envelope, the DATA section, replies.

// MARK: - Addresses, headers, body

enum SMTPAddress {
    /// Minimal validation: ASCII `local@domain`, no spaces, controls, quotes, brackets or other
    /// characters that could end the address in a header or an SMTP command.
    static func isValid(_ address: String) -> Bool {
        guard address.utf8.count <= 254, let at = address.lastIndex(of: "@") else { return false }
        let local = address[..<at]
        let domain = address[address.index(after: at)...]
        guard !local.isEmpty, local.utf8.count <= 64, !domain.isEmpty else { return false }
        guard local.utf8.allSatisfy(isLocalPartByte), !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..") else {
            return false
        }
        if domain.hasPrefix("[") && domain.hasSuffix("]") {
            let literal = domain.dropFirst().dropLast()
            return !literal.isEmpty && literal.utf8.allSatisfy { byte in
                (0x21...0x7E).contains(byte) && byte != UInt8(ascii: "[") && byte != UInt8(ascii: "]") && byte != UInt8(ascii: "\\")
            }
        }
        return SMTPConfiguration.isValidDomain(String(domain)) && !domain.hasSuffix(".") && !domain.hasSuffix("-")
            && !domain.contains("_")
    }

    private static func isLocalPartByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            // RFC 5322 atext, and the dot.
            return "!#$%&'*+-/=?^_`{|}~.".utf8.contains(byte)
        }
    }

    /// A configured EHLO name if it is a domain or an address literal, nil otherwise.
    static func validHeloName(_ name: String) -> String? {
        isValid("x@\(name)") ? name : nil
    }

    static func domain(of address: String) -> String {
        address.lastIndex(of: "@").map { String(address[address.index(after: $0)...]) } ?? "localhost"
    }
}

/// A checked message, ready to be rendered once the server's extensions are known.
struct SMTPEnvelope: Sendable {
    let from: String
    let to: String
    let subject: String
    let text: String

    /// Refuses, before any connection, what could break out of its header or the SMTP command.
    init(message: MailMessage, from: String) throws {
        guard !message.to.contains(where: { $0 == "\r" || $0 == "\n" }) else {
            throw SMTPError.invalidMessage("the recipient holds a line break")
        }
        guard SMTPAddress.isValid(message.to) else {
            throw SMTPError.invalidMessage("'\(message.to)' is not an email address")
        }
        guard SMTPAddress.isValid(from) else {
            throw SMTPError.invalidMessage("'\(from)' is not an email address")
        }
        guard !message.subject.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw SMTPError.invalidMessage("the subject holds a line break")
        }
        guard message.subject.utf8.count <= 2_000 else {
            throw SMTPError.invalidMessage("the subject is longer than 2,000 bytes")
        }
        self.from = from
        self.to = message.to
        self.subject = message.subject
        self.text = message.text
    }

    /// The message as DATA carries it, before dot-stuffing: headers and body with CRLF line
    /// endings, ending in CRLF.
    func render(eightBitAllowed: Bool, date: Date, messageID: String? = nil) -> SMTPData {
        let lines = SMTPData.lines(of: text)
        let ascii = text.utf8.allSatisfy { $0 < 0x80 }
        let clean = !text.unicodeScalars.contains("\0") && lines.allSatisfy { $0.utf8.count <= 998 }
        let encoding: String
        let body: String
        if clean && ascii {
            encoding = "7bit"
            body = lines.joined(separator: "\r\n")
        } else if clean && eightBitAllowed {
            encoding = "8bit"
            body = lines.joined(separator: "\r\n")
        } else {
            encoding = "base64"
            let normalized = Data(lines.joined(separator: "\r\n").utf8)
            body = normalized.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        }
        let id = messageID ?? "<\(UUID().uuidString.lowercased())@\(SMTPAddress.domain(of: from))>"
        let headers = [
            "From: \(from)",
            "To: \(to)",
            "Subject: \(SMTPData.encodedHeaderText(subject))",
            "Date: \(SMTPData.rfc5322Date(date))",
            "Message-ID: \(id)",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: \(encoding)",
            "Auto-Submitted: auto-generated",
        ]
        let whole = headers.joined(separator: "\r\n") + "\r\n\r\n" + body + "\r\n"
        return SMTPData(bytes: Array(whole.utf8), needs8BitMIME: encoding == "8bit")
    }
}

struct SMTPData: Sendable {
    var bytes: [UInt8]
    var needs8BitMIME: Bool

    /// The text split at CRLF, CR or LF.
    static func lines(of text: String) -> [String] {
        var lines: [String] = []
        var current = ""
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                if !previousWasCR { lines.append(current); current = "" }
                previousWasCR = false
            } else if scalar == "\r" {
                lines.append(current)
                current = ""
                previousWasCR = true
            } else {
                current.unicodeScalars.append(scalar)
                previousWasCR = false
            }
        }
        lines.append(current)
        return lines
    }

    /// RFC 5321 4.5.2: a line that starts with "." gets one more.
    static func dotStuffed(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var atLineStart = true
        for byte in bytes {
            if atLineStart && byte == UInt8(ascii: ".") { out.append(UInt8(ascii: ".")) }
            out.append(byte)
            atLineStart = byte == UInt8(ascii: "\n")
        }
        return out
    }

    /// Printable ASCII as it is; anything else as RFC 2047 `=?UTF-8?B?…?=` words of at most
    /// 75 characters, folded onto continuation lines, never splitting a character's bytes.
    static func encodedHeaderText(_ text: String) -> String {
        let printable = text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
        if printable && !text.contains("=?") && text.utf8.count <= 900 { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > 45 {  // 45 bytes → 60 base64 characters + 12 = 72
                words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}

// MARK: - Replies and capabilities

struct SMTPReply: Sendable, Equatable {
    var code: Int
    var lines: [String]
    var message: String { lines.joined(separator: " ").trimmingCharacters(in: .whitespaces) }
}

struct SMTPCapabilities: Sendable {
    private var keywords: [String: [String]] = [:]

    init(ehlo reply: SMTPReply) {
        for line in reply.lines.dropFirst() {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "=" }).map { $0.uppercased() }
            guard let keyword = words.first else { continue }
            keywords[keyword, default: []].append(contentsOf: words.dropFirst())
        }
    }

    func has(_ keyword: String) -> Bool { keywords[keyword] != nil }
    var authMechanisms: Set<String> { Set(keywords["AUTH"] ?? []) }
}
