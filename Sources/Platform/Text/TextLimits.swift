import Foundation

extension String {
    /// Whether the text is within a length rule counted both ways: in characters, as people count
    /// them, and in UTF-8 bytes, as storage and pages pay for them. A character can be any number
    /// of scalars (`"z"` plus 150,000 combining marks is one), so a character limit alone bounds
    /// nothing. Every stored string is checked with this.
    package func fits(characters maxCharacters: Int, bytes maxBytes: Int) -> Bool {
        utf8.count <= maxBytes && count <= maxCharacters
    }

    /// The first `maxBytes` bytes of UTF-8, cut at a character boundary; for values we store as
    /// context only (a browser's user agent), where cutting is better than refusing.
    package func truncated(toBytes maxBytes: Int) -> String {
        guard utf8.count > maxBytes else { return self }
        var result = ""
        var used = 0
        for character in self {
            let size = character.utf8.count
            guard used + size <= maxBytes else { break }
            result.append(character)
            used += size
        }
        return result
    }
}
