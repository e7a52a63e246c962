import Foundation

/// The inbox a normalized (trimmed, lower-cased) address reaches, as mail to people is counted —
/// verification codes, reset and confirmation links: `+tag` dropped on every domain
/// (`a+1@x.com` is `a@x.com`'s inbox), and for Gmail the dots of the name and `googlemail.com`
/// too. Plain Swift, so Domain code may use it (`import enum Platform.EmailInbox`).
public enum EmailInbox {
    public static func key(_ email: String) -> String {
        guard let at = email.lastIndex(of: "@") else { return email }
        var name = email[..<at]
        var domain = email[email.index(after: at)...]
        if let plus = name.firstIndex(of: "+"), plus != name.startIndex { name = name[..<plus] }
        if domain == "googlemail.com" { domain = "gmail.com" }
        if domain == "gmail.com" { name = Substring(name.filter { $0 != "." }) }
        return name + "@" + domain
    }
}
