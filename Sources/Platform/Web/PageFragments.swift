import Foundation
package import Plot
import Vapor

/// Parts of pages that are the same for every reader of a language — a shop section's dish cards,
/// a place's header — rendered once and kept while the data they show is unchanged. The owner
/// passes a `version` that moves whenever that data changes (a listing's stock, the map's content
/// generation): a fragment made for another version is made again, so no write has to reach in
/// here. What is the reader's own (the cart count, their marks, the CSRF token) stays outside.
///
/// Rendering with Plot builds a node tree of closures per element; for a list of sixty cards that
/// tree was most of a page's time, and it is the same tree for everyone.
package final class PageFragments: Sendable {
    private struct Entry: Sendable {
        let version: Int
        let html: String
    }

    private let entries: BoundedMemory<String, Entry>
    package var capacity: Int { entries.capacity }
    /// Whole page bodies (`Layout.keptPage`), by language, kind of viewer, address and variant.
    let pages: BoundedMemory<String, KeptPage>
    /// Pages of a reader's own, kept by what they show (`Layout.keptPage(_:shown:)`): apart, so a
    /// crowd of readers each with their own cart or profile fills this memory and starts it over,
    /// never the pages every reader shares.
    let ownPages: BoundedMemory<String, KeptPage>
    /// JSON already encoded, by the value itself (`encoded(_:)`).
    private let encodedValues: BoundedMemory<KeptPage.Shown, PageConfig.Encoded>

    package init(capacity: Int = 4_096) {
        encodedValues = BoundedMemory(name: "encoded_page_values", capacity: capacity)
        entries = BoundedMemory(name: "page_fragments", capacity: capacity)
        // Whole pages are 5–30 KB: at most 2,048 shared ones and 1,024 own ones (about 60 MB),
        // whatever queries a crowd sends.
        pages = BoundedMemory(name: "kept_pages", capacity: min(capacity, 2_048))
        ownPages = BoundedMemory(name: "kept_own_pages", capacity: min(capacity, 1_024))
    }

    /// The fragment for `key` in `language` at `version`, made by `make` when not kept. A `make`
    /// that throws keeps nothing (the next reader makes it again).
    package func html(_ key: String, language: Language, version: Int, _ make: () throws -> String) rethrows -> String {
        let fullKey = language.rawValue + "|" + key
        if let entry = entries[fullKey], entry.version == version { return entry.html }
        let html = try make()
        // A full store starts over: fragments are cheap to make again once, and keys are few.
        entries.keep(Entry(version: version, html: html), for: fullKey)
        return html
    }

    /// The same, as a node to put in a page.
    package func node<Context>(_ key: String, language: Language, version: Int, _ make: () -> Node<Context>) -> Node<Context> {
        .raw(html(key, language: language, version: version) { make().render() })
    }

    /// JSON the same for every reader of a language (a page's texts for its scripts), encoded once.
    package func json(_ key: String, language: Language, version: Int = 0, _ make: () throws -> some Encodable) rethrows -> PageConfig.Encoded {
        let text = try html("json|" + key, language: language, version: version) {
            let value = try make()
            return String(decoding: (try? AppJSON.encoder().encode(value)) ?? Data("null".utf8), as: UTF8.self)
        }
        return PageConfig.Encoded(json: Data(text.utf8))
    }

    /// `value` as JSON for a page's config, encoded once per distinct value: equal values encode
    /// alike, so what was encoded for an equal one is handed back. For a reader's own values that
    /// every view puts in its page (a mate's profile and state: JSONEncoder on every view was a
    /// tenth of each mates page); the memory holds only what was encoded from such values.
    package func encoded<Value: Encodable & Hashable & Sendable>(_ value: Value) throws -> PageConfig.Encoded {
        let key = KeptPage.Shown(value)
        if let kept = encodedValues[key] { return kept }
        let made = try PageConfig.Encoded(value)
        encodedValues.keep(made, for: key)
        return made
    }

    package var count: Int { entries.count }
}

extension Application {
    private struct PageFragmentsKey: StorageKey { typealias Value = PageFragments }

    /// Set in `configure`; features key their fragments by their own names (`shop.sections`).
    package var pageFragments: PageFragments {
        get { configured(PageFragmentsKey.self) }
        set { storage[PageFragmentsKey.self] = newValue }
    }
}
