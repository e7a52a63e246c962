import Vapor

extension Application {
    private struct TranslatorKey: StorageKey { typealias Value = Translator }

    /// The translation catalogs, loaded once in `configure`.
    public var translator: Translator {
        get { configured(TranslatorKey.self) }
        set { storage[TranslatorKey.self] = newValue }
    }
}

/// A signed-in user's saved language, set by the authenticators so this layer need not know accounts.
package struct AccountLanguageKey: StorageKey { package typealias Value = Language }
private struct NegotiatedLanguageKey: StorageKey { typealias Value = Language }
/// The language switch's cookie as this request sent it (nil inside: no such cookie, or not a language).
private struct CookieLanguageKey: StorageKey { typealias Value = Language? }

extension Request {
    /// Name of the cookie the language switch sets.
    package static let languageCookie = "lang"

    /// The language to answer in: the language switch's cookie, then the signed-in user's
    /// setting, then `Accept-Language`, then Korean.
    public var language: Language {
        // A page asks for dozens of texts: the switch's cookie is looked up once per request.
        let chosen: Language?
        if let read = storage[CookieLanguageKey.self] {
            chosen = read
        } else {
            chosen = cookie(Request.languageCookie).flatMap { Language(rawValue: $0) }
            storage[CookieLanguageKey.self] = .some(chosen)
        }
        if let chosen { return chosen }
        if let saved = storage[AccountLanguageKey.self] { return saved }
        // A page asks for many strings; parse the header once per request.
        if let negotiated = storage[NegotiatedLanguageKey.self] { return negotiated }
        let negotiated = Language.negotiate(acceptLanguage: headers.first(name: .acceptLanguage)) ?? .default
        storage[NegotiatedLanguageKey.self] = negotiated
        return negotiated
    }

    /// Translated text for this request's language.
    public func t(_ key: String, _ arguments: [String: String] = [:]) -> String {
        application.translator.text(key, language, arguments)
    }
}
