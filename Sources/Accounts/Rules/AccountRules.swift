public import Foundation

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
    public static let nicknameLength = 1...20
    /// A nickname's bytes: 20 Hangul syllables take 60, ten emoji with skin tones 80.
    public static let nicknameMaxBytes = 80
    public static let emailMaxLength = 254

    /// An address under `.invalid` (RFC 2606): an app's linked sign-in or a made-up account. Nobody
    /// reads it, and nobody signs in with it by a password, so "forgot password" passes it by.
    public static func isUnreadableAddress(_ email: String) -> Bool {
        email.hasSuffix(".invalid")
    }

    /// Emails compare case-insensitively and without surrounding spaces.
    public static func normalizeEmail(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// A signed-in device as its owner recognizes it, from its `User-Agent`: "Chrome · Android",
    /// "Safari · iPhone", an app by its name ("LookForRealBurger · iOS"); nil when nothing is
    /// recognizable.
    public static func deviceLabel(userAgent: String?) -> String? {
        guard let agent = userAgent?.trimmingCharacters(in: .whitespaces), !agent.isEmpty else { return nil }
        func has(_ part: String) -> Bool { agent.range(of: part, options: .caseInsensitive) != nil }
        let system: String? =
            has("iPhone") ? "iPhone" : has("iPad") ? "iPad" : has("Android") ? "Android" : has("CrOS") ? "ChromeOS"
            : has("Macintosh") || has("Mac OS X") ? "Mac" : has("Windows") ? "Windows" : has("Linux") ? "Linux"
            : has("Darwin") || has("iOS") || has("CFNetwork") ? "iOS" : nil
        let program: String?
        if agent.hasPrefix("Mozilla/") {
            program = has("SamsungBrowser") ? "Samsung Internet" : has("Edg/") || has("EdgA/") || has("EdgiOS/") ? "Edge"
                : has("OPR/") ? "Opera" : has("Firefox/") || has("FxiOS/") ? "Firefox" : has("Chrome/") || has("CriOS/") ? "Chrome"
                : has("Safari/") ? "Safari" : nil
        } else {
            // An app names itself first: "LookForRealBurger/1.0 (iPhone; iOS 17.0) Alamofire/5.8".
            let name = agent.prefix { $0 != "/" && $0 != " " && $0 != "(" }
            program = name.isEmpty ? nil : String(name.prefix(40))
        }
        let parts = [program, system].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// Violation code for an email (already normalized), or nil when it is acceptable.
    /// Lengths are RFC 5321's, in bytes.
    public static func emailViolation(_ email: String) -> String? {
        guard !email.isEmpty, email.utf8.count <= emailMaxLength else { return "invalid_email" }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64 else { return "invalid_email" }
        let domain = parts[1]
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }),
              domain.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }),
              parts[0].allSatisfy({ !$0.isWhitespace && !$0.isNewline && $0 != "<" && $0 != ">" && $0 != "," }),
              !email.unicodeScalars.contains(where: { isInvisible($0) || $0.properties.generalCategory == .nonspacingMark })
        else { return "invalid_email" }
        return nil
    }

    /// bcrypt reads a password as a C string, so a NUL would end it early ("\0" × 8 would be the
    /// empty password); no control character has a place in a password.
    /// `minimumLength` is ours (8) but on a shipped app's route that keeps its original server's
    /// rule (`LSLPRules.passwordMinLength`).
    public static func passwordViolation(_ password: String, minimumLength: Int = passwordMinLength) -> String? {
        if password.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "password_invalid_characters"
        }
        if password.count < minimumLength { return "password_too_short" }
        if password.utf8.count > passwordMaxBytes { return "password_too_long" }
        return nil
    }

    /// Nicknames are NFKC-normalized, so full-width `ａｄｍｉｎ` is `admin`, and precomposed, so a
    /// Hangul syllable typed as jamo is the syllable; variation selectors go, except an emoji's
    /// own (text or emoji style, `❤️`), and runs of spaces are one space (a page shows them as one).
    public static func normalizeNickname(_ nickname: String) -> String {
        var scalars = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in nickname.precomposedStringWithCompatibilityMapping.unicodeScalars {
            defer { previous = scalar }
            if isVariationSelector(scalar) {
                let emojiStyle = scalar.value == 0xFE0E || scalar.value == 0xFE0F
                guard emojiStyle, let base = previous, base.properties.isEmoji, !isVariationSelector(base) else { continue }
            }
            scalars.append(scalar)
        }
        return String(scalars).trimmingCharacters(in: .whitespacesAndNewlines).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Variation selectors (`U+FE00`–`FE0F`, `U+E0100`–`E01EF`, Mongolian's): they choose a glyph
    /// and draw nothing themselves.
    static func isVariationSelector(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xFE00...0xFE0F, 0xE0100...0xE01EF, 0x180B...0x180D, 0x180F: return true
        default: return false
        }
    }

    /// 1–20 visible characters (one-syllable names like 별 or 곰 are common, and the apps allow them) (a Hangul syllable or an emoji counts as one) within 80 bytes;
    /// no control, invisible or direction-changing characters, no angle brackets, and no pile of
    /// combining marks on one character. The zero-width joiner is allowed only inside an emoji
    /// sequence (👩‍🍳), where it is part of one picture.
    public static func nicknameViolation(_ nickname: String) -> String? {
        guard nicknameLength.contains(nickname.count), nickname.utf8.count <= nicknameMaxBytes else {
            return "invalid_nickname_length"
        }
        for character in nickname {
            let scalars = Array(character.unicodeScalars)
            let marks = scalars.filter { [.nonspacingMark, .enclosingMark, .spacingMark].contains($0.properties.generalCategory) }
            if marks.count > 3 { return "invalid_nickname_characters" }
            for (index, scalar) in scalars.enumerated() {
                if scalar == "<" || scalar == ">" || CharacterSet.newlines.contains(scalar) { return "invalid_nickname_characters" }
                if scalar == "\u{200D}" {
                    let joinsEmoji = index > 0 && index < scalars.count - 1
                        && scalars[index - 1].properties.isEmoji && scalars[index + 1].properties.isEmoji
                    if !joinsEmoji { return "invalid_nickname_characters" }
                    continue
                }
                if isInvisible(scalar) { return "invalid_nickname_characters" }
            }
        }
        return nil
    }

    /// Characters that draw nothing or change how their neighbours draw: controls, format
    /// characters (zero-width spaces, direction marks and overrides, the BOM, soft hyphen), the
    /// Hangul fillers people use for "blank" nicknames, and other blank-looking code points.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse, .surrogate: return true
        default: break
        }
        let blanks: Set<UInt32> = [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x2800, 0x3164, 0xFFA0]
        return blanks.contains(scalar.value)
    }

    /// Uniqueness key: two nicknames that look alike are one nickname. The key is Unicode's
    /// confusables skeleton (UTS #39, `Confusables`) of the name without variation selectors,
    /// lower-cased and skeletonized again: letter case, letters of other scripts drawn alike
    /// (Cyrillic `һ`, Armenian `օ`, dotless `ı`), `I`/`l`/`1` and `0`/`O` make no new name.
    public static func nicknameKey(_ nickname: String) -> String {
        let drawn = String(String.UnicodeScalarView(nickname.unicodeScalars.filter { !isVariationSelector($0) }))
        return Confusables.skeleton(Confusables.skeleton(drawn).lowercased())
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
    /// Used moments ago: the same client retrying a rotation whose answer it lost, or two of its
    /// requests racing. Answered with the same successor instead of signing the user out.
    case retryOfRotation
    /// Used once, longer ago: someone replays a stolen copy; revoke the family.
    case reuseDetected
    case expired
    /// The family was logged out or revoked earlier.
    case revoked

    /// Seconds after a rotation during which presenting the old token again is a retry.
    public static let retryWindow: TimeInterval = 10

    public static func evaluate(usedAt: Date?, expiresAt: Date, familyRevokedAt: Date?, now: Date, retryWindow: TimeInterval = 0) -> RefreshOutcome {
        if familyRevokedAt != nil { return .revoked }
        if let usedAt { return now.timeIntervalSince(usedAt) < retryWindow ? .retryOfRotation : .reuseDetected }
        if expiresAt <= now { return .expired }
        return .rotate
    }
}
