import Foundation

/// The length rules' one constant, and a name a `Rules/` file can import (they import named types
/// only: `import enum Platform.TextLimits`), which brings `String.fits` with it.
package enum TextLimits {
    /// The UTF-8 bytes a rule stated in characters allows per character: four (a Hangul
    /// syllable takes three, most emoji four).
    package static let bytesPerCharacter = 4
}

extension String {
    /// Whether the text is within a length rule counted three ways: in characters, as people count
    /// them; in UTF-8 bytes, as storage and pages pay for them (a character can be any number of
    /// scalars: `"z"` plus 150,000 combining marks is one, so a character limit alone bounds
    /// nothing); and in code points, at most `codePoints` (the character limit unless said), which
    /// is what openapi.yaml's `maxLength` states: JSON Schema counts code points, so without it a
    /// search of Devanagari conjuncts (several code points a character) was within the rule and
    /// over the documented limit. Check the text as it was sent, before trimming: the document's limit is on
    /// that. Every stored string and every bounded parameter is checked with this.
    package func fits(characters maxCharacters: Int, bytes maxBytes: Int, codePoints maxCodePoints: Int? = nil) -> Bool {
        utf8.count <= maxBytes && unicodeScalars.count <= (maxCodePoints ?? maxCharacters) && count <= maxCharacters
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
