/// Korean particles chosen by the sound a word ends with, as people write them: "김치찌개를",
/// "불고기를", "한우 500g을", "010-1234-5678로" — never "을(를)". A translation asks for one with
/// `{name|을/를}`: the form before the slash follows a final consonant (받침), the one after it a
/// vowel. `으로/로` also takes 로 after ㄹ (서울로). Public/js/shared/config.js does the same.
package enum KoreanParticle {
    /// `forms` is "을/를", "은/는", "이/가", "과/와", "으로/로", "이에요/예요"…; `word` what it follows.
    package static func choose(_ forms: Substring, after word: String) -> String {
        let parts = forms.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return String(forms) }
        let (consonantForm, vowelForm) = (String(parts[0]), String(parts[1]))
        guard let ending = finalSound(of: word) else { return consonantForm }
        switch ending {
        case .vowel: return vowelForm
        case .rieul: return consonantForm == "으로" ? vowelForm : consonantForm
        case .consonant: return consonantForm
        }
    }

    enum Ending { case vowel, rieul, consonant }

    /// How `word` ends when read aloud: its last Hangul syllable's 받침, a digit's or a Latin
    /// letter's Korean reading, a weight unit ("500g" is 그램). Brackets, quotes and emoji after it
    /// are skipped; nil when nothing readable is left.
    static func finalSound(of word: String) -> Ending? {
        let lowered = word.lowercased()
        var scalars = Array(lowered.unicodeScalars)
        while let last = scalars.last, !(isHangulSyllable(last) || last.properties.isAlphabetic || ("0"..."9").contains(last)) {
            scalars.removeLast()
        }
        guard let last = scalars.last else { return nil }
        if isHangulSyllable(last) {
            let final = (last.value - 0xAC00) % 28
            return final == 0 ? .vowel : final == 8 ? .rieul : .consonant
        }
        let tail = String(String.UnicodeScalarView(scalars.suffix(3)))
        // Weights read as 그램: 500g, 1kg, 200mg.
        if tail.hasSuffix("g"), scalars.count >= 2, ("0"..."9").contains(scalars[scalars.count - 2]) || tail.hasSuffix("kg") || tail.hasSuffix("mg") {
            return .consonant
        }
        switch Character(last) {
        // 영 삼 육 / 일 칠 팔: the digits read with a 받침.
        case "0", "3", "6": return .consonant
        case "1", "7", "8": return .rieul
        case "2", "4", "5", "9": return .vowel
        // 엘, 알 / 엠, 엔: the Latin letters read with a 받침.
        case "l", "r": return .rieul
        case "m", "n": return .consonant
        default: return .vowel
        }
    }

    private static func isHangulSyllable(_ scalar: Unicode.Scalar) -> Bool {
        (0xAC00...0xD7A3).contains(scalar.value)
    }
}
