package import Foundation
package import NIOCore
package import Plot
package import Vapor

/// Whole page bodies kept per version, as the API keeps its JSON (`ResponseCache`).
///
/// A page's body is the same for every reader of a language who is signed in alike (a visitor, a
/// member, an administrator) at one version of what it shows: a place, a review, the shop's
/// shelves. `Layout.keptPage` makes it once — title, the frame's extras, the body, the script's
/// config — with markers where each request's own parts go (the CSRF token, the viewer's id and
/// API token, the reader's parts such as their marks), and from then on a request only looks it
/// up and fills those in. The owner passes a `version` that moves whenever the data shown changes
/// (the map's content generation, the shop's listings version), so no write has to reach in here.
///
/// Plot builds a tree of closures per element and renders it through a buffer per level; with the
/// frame kept already (`LayoutFrame`), the body's tree and the script's config were most of what a
/// page cost beyond the bare route.
extension Layout {
    /// What a kept page is made of; made only when the page is not kept at its version.
    package struct PageParts {
        package var title: String
        package var status: HTTPResponseStatus
        package var extras: PageExtras
        package var main: Node<HTML.BodyContext>
        /// A scripted page's config block (`scriptedPage`): its texts' prefix and its values. The
        /// viewer's `me` and `accessToken` are each reader's own and are added by `keptPage`.
        package var script: (stringPrefix: String, values: [String: Any])?

        package init(title: String, status: HTTPResponseStatus = .ok, extras: PageExtras = PageExtras(),
                     script: (stringPrefix: String, values: [String: Any])? = nil, main: Node<HTML.BodyContext>) {
            self.title = title
            self.status = status
            self.extras = extras
            self.main = main
            self.script = script
        }
    }

    /// What is the reader's own on a kept page.
    package struct ReaderParts {
        /// The signed-in viewer's id and API token, for a scripted page's config (`me`, `accessToken`).
        package var api: (me: String, accessToken: String)?
        /// HTML (already escaped for where it lands) for `readerPart(0)`, `readerPart(1)`, …
        package var parts: [String]

        package init(api: (me: String, accessToken: String)? = nil, parts: [String] = []) {
            self.api = api
            self.parts = parts
        }
    }

    /// Where the reader's part `index` goes in a kept page's body (`ReaderParts.parts[index]`).
    package static func readerPart<Context>(_ index: Int) -> Node<Context> {
        .raw(readerPartMarker(index))
    }

    /// The same where a value is text (an attribute's value): Plot leaves the marker as it is.
    package static func readerPartMarker(_ index: Int) -> String {
        LayoutFrame.marker(LayoutFrame.Slot.parts[index])
    }

    /// The page for `request` made by `make` at `version`, kept for the next reader of the same
    /// address (path and query), language and kind of viewer (visitor, signed in, administrator)
    /// and `variant` (anything else the body depends on that is not the reader's own part), for at
    /// most `lifetime` when given (what changes behind the version's back that nothing announces),
    /// as long as the version has not moved.
    /// While `make` runs, `csrfField` and the config block write markers, not this request's token.
    package static func keptPage(
        _ request: Request, variant: String = "", version: Int, lifetime: TimeAmount? = nil, reader: ReaderParts = ReaderParts(),
        make: () throws -> PageParts
    ) rethrows -> Response {
        try keptPage(request, variant: variant, version: version, shown: nil, lifetime: lifetime, reader: reader, make: make)
    }

    /// A reader's own page (their cart, their orders, their account) kept by what it shows: `shown`
    /// holds every value `make` turns into the body — read fresh on every request, as before — and
    /// the page is made again whenever any of them differs. What this saves is the rendering, which
    /// was most of such a page's time; no writer has to announce anything, since the request reads
    /// the rows anyway. Two readers share a kept page only when everything shown is equal (compared
    /// whole, not only by hash), so a reader never sees another's page.
    ///
    /// `make` must use nothing but `shown`, the request's language and kind of viewer, and the
    /// address (each part of the key): the reader's id, tokens and the CSRF token go in as
    /// `reader` parts and markers, as on every kept page. `keeps: false` makes and fills the page
    /// the same way without keeping it: for what is shown once (a form's error).
    package static func keptPage<Shown: Hashable & Sendable>(
        _ request: Request, variant: String = "", shown: Shown, keeps: Bool = true, lifetime: TimeAmount? = nil,
        reader: ReaderParts = ReaderParts(), make: (Shown) throws -> PageParts
    ) rethrows -> Response {
        try keptPage(
            request, variant: variant + "#" + String(shown.hashValue), version: 0, shown: KeptPage.Shown(shown),
            keeps: keeps, lifetime: lifetime, reader: reader, make: { try make(shown) }
        )
    }

    /// The same for a page whose data is read from the database: `read` reads and makes it only
    /// when the page is not kept at `version`, so a kept page costs no query at all. `version` must
    /// be taken before `read` reads (a write that lands meanwhile moves it, and the page is made
    /// again for the next reader).
    package static func keptPage(
        _ request: Request, variant: String = "", version: Int, lifetime: TimeAmount? = nil, reader: ReaderParts = ReaderParts(),
        read: () async throws -> PageParts
    ) async throws -> Response {
        let place = KeptPlace(request, variant: variant, own: false)
        if let hit = place.hit(request, version: version, shown: nil, reader: reader) { return hit }
        request.storage[KeptPageRenderingKey.self] = true
        defer { request.storage[KeptPageRenderingKey.self] = nil }
        let parts = try await read()
        let kept = assemble(request, parts, version: version, shown: nil, expires: lifetime.map { place.now + $0 }, signedIn: place.signedIn)
        return place.keep(request, kept, keeps: true, reader: reader)
    }

    private static func keptPage(
        _ request: Request, variant: String, version: Int, shown: KeptPage.Shown?, keeps: Bool = true, lifetime: TimeAmount?,
        reader: ReaderParts, make: () throws -> PageParts
    ) rethrows -> Response {
        let place = KeptPlace(request, variant: variant, own: shown != nil)
        if keeps, let hit = place.hit(request, version: version, shown: shown, reader: reader) { return hit }
        request.storage[KeptPageRenderingKey.self] = true
        defer { request.storage[KeptPageRenderingKey.self] = nil }
        let kept = assemble(request, try make(), version: version, shown: shown, expires: lifetime.map { place.now + $0 }, signedIn: place.signedIn)
        return place.keep(request, kept, keeps: keeps, reader: reader)
    }

    /// Where one request's page is kept: its key (language, kind of viewer, address, variant), in
    /// the shared pages' memory or the reader's own pages' (`PageFragments.ownPages`).
    private struct KeptPlace {
        let key: String
        let path: String
        let signedIn: Bool
        let unreadShown: Bool
        let memory: BoundedMemory<String, KeptPage>
        let now = NIODeadline.now()

        init(_ request: Request, variant: String, own: Bool) {
            memory = own ? request.application.pageFragments.ownPages : request.application.pageFragments.pages
            let viewer = request.storage[WebViewerKey.self]
            var key = request.language.rawValue
            key += viewer == nil ? "|v|" : viewer!.isAdmin ? "|a|" : "|s|"
            path = request.url.path
            key += path
            if let query = request.url.query { key += "?" + query }
            key += "|" + variant
            self.key = key
            signedIn = viewer != nil
            unreadShown = (request.storage[InboxBadgeKey.self] ?? 0) > 0
        }

        /// The kept page filled for this request, if kept at `version` (and `shown`) and not expired.
        func hit(_ request: Request, version: Int, shown: KeptPage.Shown?, reader: ReaderParts) -> Response? {
            guard let kept = memory[key], kept.version == version, kept.shown == shown,
                  kept.expires.map({ $0 > now }) ?? true, let frame = LayoutFrame.kept(kept.frameKeys[unreadShown ? 1 : 0]) else { return nil }
            request.storage[SecurityHeadersMiddleware.PagePolicyKey.self] = kept.policy.isEmpty ? nil : kept.policy
            return Layout.fill(request, kept, frame: frame, reader: reader, path: path)
        }

        /// Keeps a page just made (unless `keeps` is false) and fills it for this request.
        func keep(_ request: Request, _ kept: KeptPage, keeps: Bool, reader: ReaderParts) -> Response {
            if keeps { memory.keep(kept, for: key) }
            let frame = LayoutFrame.template(for: kept.frameKeys[unreadShown ? 1 : 0]) {
                Layout.html(request, extras: kept.extras.value, signedIn: signedIn, unreadShown: unreadShown)
            }
            if !kept.policy.isEmpty { request.storage[SecurityHeadersMiddleware.PagePolicyKey.self] = kept.policy }
            return Layout.fill(request, kept, frame: frame, reader: reader, path: path)
        }
    }

    /// A page made while `KeptPageRenderingKey` is set: its parts rendered, with markers for each reader's own.
    private static func assemble(
        _ request: Request, _ parts: PageParts, version: Int, shown: KeptPage.Shown?, expires: NIODeadline?, signedIn: Bool
    ) -> KeptPage {
        var extras = parts.extras
        if extras.policy.isEmpty, !extras.vendorScripts.isEmpty || !extras.vendorStylesheets.isEmpty { extras.policy = .map }
        var main = parts.main
        if let script = parts.script {
            var values = script.values
            values["me"] = signedIn ? LayoutFrame.marker(.viewerID) : NSNull()
            values["accessToken"] = signedIn ? LayoutFrame.marker(.accessToken) : NSNull()
            main = .group(
                main,
                .p(.class("page-status"), .id("page-status"), .role("status")),
                PageConfig.block(request, stringPrefixes: [script.stringPrefix], values: values)
            )
        }
        return KeptPage(
            version: version, shown: shown, expires: expires, status: parts.status,
            frameKeys: [false, true].map { LayoutFrame.Key(language: request.language, signedIn: signedIn, unreadShown: $0, extras: extras) },
            title: Markup.escape("\(parts.title) · \(request.t("app.name"))"),
            preview: (extras.preview ?? LinkPreview()).tags(request, pageTitle: parts.title),
            headerLinks: LayoutFrame.Template(rendered: extras.headerLinks.render()), bottomBar: extras.bottomBar.render(),
            policy: extras.policy, extras: KeptPage.Extras(extras),
            main: LayoutFrame.Template(rendered: main.render())
        )
    }

    private static func fill(_ request: Request, _ kept: KeptPage, frame: LayoutFrame.Template, reader: ReaderParts, path: String) -> Response {
        func own(_ slot: LayoutFrame.Slot) -> String {
            switch slot {
            case .csrf: return Markup.escape(request.csrfToken)
            case .next: return Markup.escape(path)
            // Inside the config's JSON strings: an id and a token need no escape, but a quote or a
            // backslash must never end the string early.
            case .viewerID: return jsonStringContent(reader.api?.me ?? "")
            case .accessToken: return jsonStringContent(reader.api?.accessToken ?? "")
            case .part0, .part1, .part2, .part3, .part4, .part5:
                let index = LayoutFrame.Slot.parts.firstIndex(of: slot)!
                return index < reader.parts.count ? reader.parts[index] : ""
            case .title, .preview, .headerLinks, .bellLabel, .unreadCount, .nickname, .main, .bottomBar: return ""
            }
        }
        return respond(
            request, frame: frame, status: kept.status, headers: [:], title: kept.title,
            preview: { kept.preview }, headerLinks: { kept.headerLinks.fill(own) }, bottomBar: { kept.bottomBar },
            main: { kept.main.fill(own) }, path: path
        )
    }

    /// `text` as it may stand between a JSON string's quotes inside a `<script>` block: a reader's
    /// part that lands inside a config's string must be passed through this.
    package static func jsonStringContent(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "<") }) else {
            return text
        }
        var json = JSONBytes(capacity: text.utf8.count + 8)
        json.string(text)
        var escaped: [UInt8] = []
        Markup.appendScriptSafe(json.bytes.dropFirst().dropLast(), to: &escaped)
        return String(decoding: escaped, as: UTF8.self)
    }
}

/// One kept page (`Layout.keptPage`).
struct KeptPage: Sendable {
    /// The frame's extras, for making the frame again should it have been dropped: its files and
    /// body class (the frame has markers where the links and the bar go, kept rendered beside).
    struct Extras: @unchecked Sendable {
        let value: PageExtras

        init(_ extras: PageExtras) {
            var shape = extras
            shape.headerLinks = .empty
            shape.bottomBar = .empty
            shape.preview = nil
            value = shape
        }
    }

    /// What a reader's own page showed (`keptPage(_:shown:)`), compared whole on every use; also
    /// the key of a value's JSON (`PageFragments.encoded`): equal only to an equal value of its type.
    struct Shown: Hashable, @unchecked Sendable {
        // Made only from a `Sendable` value (`init`), so what it holds is safe to share.
        private let value: AnyHashable

        init(_ value: some Hashable & Sendable) { self.value = AnyHashable(value) }
    }

    let version: Int
    let shown: Shown?
    let expires: NIODeadline?
    let status: HTTPResponseStatus
    /// The frame's key without and with the unread count shown.
    let frameKeys: [LayoutFrame.Key]
    /// Escaped, with the site's name.
    let title: String
    let preview: String
    /// The links beside the account menu, with markers for the reader's parts (the shop's cart count).
    let headerLinks: LayoutFrame.Template
    let bottomBar: String
    let policy: PagePolicy
    let extras: Extras
    /// The body with markers for the request's parts.
    let main: LayoutFrame.Template
}

/// Set while `Layout.keptPage` makes a page: the CSRF token is written as a marker.
struct KeptPageRenderingKey: StorageKey { typealias Value = Bool }

extension Request {
    /// Whether a kept page is being made (`Layout.keptPage`): what is the reader's own must be a
    /// reader's part (`Layout.readerPartMarker`), never this request's value.
    package var rendersKeptPage: Bool { storage[KeptPageRenderingKey.self] == true }

    /// The CSRF token as a page's body writes it: this request's, or the marker each reader's
    /// token replaces while a kept page is made.
    package var pageCSRFToken: String {
        rendersKeptPage ? LayoutFrame.marker(.csrf) : csrfToken
    }
}

extension PageConfig.Encoded {
    /// The same JSON object with the value of its own top-level `field` replaced by the reader's
    /// part `index` (`Layout.readerPart`): a kept page's config holds what every reader shares,
    /// and each reader's own value (their marks, whether they liked it) goes in per request, as
    /// JSON. Unchanged when the object has no such field.
    package func withReaderPart(_ index: Int, asField field: String) -> PageConfig.Encoded {
        let bytes = [UInt8](data)
        let name = Array("\"\(field)\"".utf8)
        var depth = 0, position = 0
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""):
                let end = Self.endOfString(bytes, from: position)
                // A key of the outer object: its name, then a colon, then the value to replace.
                if depth == 1, end < bytes.count, bytes[end] == UInt8(ascii: ":"), bytes[position..<end].elementsEqual(name) {
                    guard let valueEnd = Self.endOfValue(bytes, from: end + 1) else { return self }
                    var replaced = Array(bytes[...end])
                    replaced.append(contentsOf: Layout.readerPartMarker(index).utf8)
                    replaced.append(contentsOf: bytes[valueEnd...])
                    return PageConfig.Encoded(json: Data(replaced))
                }
                position = end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
            position += 1
        }
        return self
    }

    /// The index after the JSON string that starts (with its quote) at `start`.
    private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
        var position = start + 1
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "\\") { position += 2; continue }
            if bytes[position] == UInt8(ascii: "\"") { return position + 1 }
            position += 1
        }
        return bytes.count
    }

    /// Where the JSON value starting at `start` ends (the index after it).
    private static func endOfValue(_ bytes: [UInt8], from start: Int) -> Int? {
        var depth = 0, position = start
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""):
                position = endOfString(bytes, from: position)
                if depth == 0 { return position }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return position }
                depth -= 1
                if depth == 0 { return position + 1 }
            case UInt8(ascii: ","): if depth == 0 { return position }
            default: break
            }
            position += 1
        }
        return nil
    }
}
