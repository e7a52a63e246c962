public import Vapor

extension Application {
    private struct TranslatorKey: StorageKey { typealias Value = Translator }

    /// The translation catalogs, loaded once in `configure`.
    public var translator: Translator {
        get { configured(TranslatorKey.self) }
        set { storage[TranslatorKey.self] = newValue }
    }
}

/// A signed-in user's saved language, set by the authenticators (`setAccountLanguage`) so this
/// layer need not know accounts.
private struct AccountLanguageKey: StorageKey { typealias Value = Language }
/// The language this request answers in, once worked out.
private struct ResolvedLanguageKey: StorageKey { typealias Value = Language }

extension Request {
    /// Name of the cookie the language switch sets.
    package static let languageCookie = "lang"

    /// The language to answer in: the language switch's cookie, then the signed-in user's
    /// setting, then `Accept-Language`, then Korean.
    public var language: Language {
        // A page asks for dozens of texts: worked out once per request (until a sign-in).
        if let resolved = storage[ResolvedLanguageKey.self] { return resolved }
        let resolved = cookie(Request.languageCookie).flatMap { Language(rawValue: $0) }
            ?? storage[AccountLanguageKey.self]
            ?? Language.negotiate(acceptLanguage: headers.first(name: .acceptLanguage))
            ?? .default
        storage[ResolvedLanguageKey.self] = resolved
        return resolved
    }

    /// The signed-in account's saved language; texts asked for before the sign-in are not affected.
    package func setAccountLanguage(_ language: Language) {
        storage[AccountLanguageKey.self] = language
        storage[ResolvedLanguageKey.self] = nil
    }

    /// Translated text for this request's language.
    public func t(_ key: String, _ arguments: [String: String] = [:]) -> String {
        application.translator.text(key, language, arguments)
    }
}
