/// Texts that trip hand-written JSON: quotes, slashes, control characters, line separators,
/// joined emoji. Every writer of JSON by hand is checked against Foundation's encoder with them.
package enum AwkwardTexts {
    package static let samples = ["", "plain", "미나 🍔", "say \"hi\"", #"back\slash"#, "a/b", "tab\there", "line\nbreak", "\r", "\u{0}\u{1}\u{1f}\u{7f}",
                                    "\u{2028}\u{2029}", "👩‍👩‍👧", "\u{08}\u{0c}"]
}
