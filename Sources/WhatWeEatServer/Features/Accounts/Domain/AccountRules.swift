import Foundation

/// Roles an account can have. Admins manage catalogs and read feedback.
public enum Role: String, Codable, Sendable, CaseIterable {
    case user, admin
}

/// The sign-up and profile rules, as plain functions. Each violation is an error code that
/// the API returns and the translation catalogs explain.
public enum AccountRules {
    public static let passwordMinLength = 8
    /// bcrypt ignores bytes past 72; refusing longer passwords avoids a silent truncation.
    public static let passwordMaxBytes = 72
    public static let nicknameLength = 2...20
    public static let emailMaxLength = 254

    /// Emails compare case-insensitively and without surrounding spaces.
    public static func normalizeEmail(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// Violation code for an email (already normalized), or nil when it is acceptable.
    public static func emailViolation(_ email: String) -> String? {
        guard !email.isEmpty, email.count <= emailMaxLength else { return "invalid_email" }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64 else { return "invalid_email" }
        let domain = parts[1]
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }),
              domain.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }),
              parts[0].allSatisfy({ !$0.isWhitespace && !$0.isNewline && $0 != "<" && $0 != ">" && $0 != "," })
        else { return "invalid_email" }
        return nil
    }

    public static func passwordViolation(_ password: String) -> String? {
        if password.count < passwordMinLength { return "password_too_short" }
        if password.utf8.count > passwordMaxBytes { return "password_too_long" }
        return nil
    }

    /// Nicknames are trimmed; 2–20 visible characters (a Hangul syllable or an emoji counts as one).
    public static func normalizeNickname(_ nickname: String) -> String {
        nickname.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public static func nicknameViolation(_ nickname: String) -> String? {
        guard nicknameLength.contains(nickname.count) else { return "invalid_nickname_length" }
        // Control characters and angle brackets are refused; format characters such as the
        // zero-width joiner inside family or skin-tone emoji are fine.
        let forbidden = nickname.unicodeScalars.contains {
            $0.properties.generalCategory == .control || CharacterSet.newlines.contains($0) || $0 == "<" || $0 == ">"
        }
        return forbidden ? "invalid_nickname_characters" : nil
    }

    /// Uniqueness key: two nicknames that differ only in letter case are the same nickname.
    public static func nicknameKey(_ nickname: String) -> String {
        nickname.lowercased()
    }
}

/// Ten failed logins for one email inside fifteen minutes lock that email until the oldest
/// failure leaves the window.
public struct LoginThrottle: Sendable {
    public let maxFailures: Int
    public let window: TimeInterval

    public init(maxFailures: Int, window: TimeInterval) {
        self.maxFailures = maxFailures
        self.window = window
    }

    /// Seconds the caller must wait, or nil when another attempt is allowed.
    /// `failures` are the times of recent failed attempts for one email, in any order.
    public func retryAfter(failures: [Date], now: Date) -> Int? {
        let recent = failures.filter { now.timeIntervalSince($0) < window }.sorted()
        guard recent.count >= maxFailures else { return nil }
        // The lock lifts when enough failures have aged out to leave fewer than the limit.
        let unlocking = recent[recent.count - maxFailures]
        let wait = unlocking.addingTimeInterval(window).timeIntervalSince(now)
        return max(1, Int(wait.rounded(.up)))
    }
}

/// What presenting a refresh token means, given what the server knows about it.
public enum RefreshOutcome: Equatable, Sendable {
    /// Valid: mark it used and hand out a new pair in the same family.
    case rotate
    /// Already used once: someone replays a stolen copy, or the real client raced; revoke the family.
    case reuseDetected
    case expired
    /// The family was logged out or revoked earlier.
    case revoked

    public static func evaluate(usedAt: Date?, expiresAt: Date, familyRevokedAt: Date?, now: Date) -> RefreshOutcome {
        if familyRevokedAt != nil { return .revoked }
        if usedAt != nil { return .reuseDetected }
        if expiresAt <= now { return .expired }
        return .rotate
    }
}
