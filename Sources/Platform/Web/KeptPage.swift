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
        let viewer = request.storage[WebViewerKey.self]
        let unread = request.storage[InboxBadgeKey.self] ?? 0
        var key = request.language.rawValue
        key += viewer == nil ? "|v|" : viewer!.isAdmin ? "|a|" : "|s|"
        let path = request.url.path
        key += path
        if let query = request.url.query { key += "?" + query }
        key += "|" + variant
        let memory = request.application.pageFragments.pages
        let kept: KeptPage
        let now = NIODeadline.now()
        if let entry = memory[key], entry.version == version, entry.expires.map({ $0 > now }) ?? true, let frame = LayoutFrame.kept(entry.frameKeys[unread > 0 ? 1 : 0]) {
            kept = entry
            request.storage[SecurityHeadersMiddleware.PagePolicyKey.self] = kept.policy.isEmpty ? nil : kept.policy
            return fill(request, kept, frame: frame, reader: reader, path: path)
        }
        kept = try makeKept(request, version: version, expires: lifetime.map { now + $0 }, signedIn: viewer != nil, make)
        memory.keep(kept, for: key)
        let frame = LayoutFrame.template(for: kept.frameKeys[unread > 0 ? 1 : 0]) {
            html(request, extras: kept.extras.value, signedIn: viewer != nil, unreadShown: unread > 0)
        }
        if !kept.policy.isEmpty { request.storage[SecurityHeadersMiddleware.PagePolicyKey.self] = kept.policy }
        return fill(request, kept, frame: frame, reader: reader, path: path)
    }

    private static func makeKept(
        _ request: Request, version: Int, expires: NIODeadline?, signedIn: Bool, _ make: () throws -> PageParts
    ) rethrows -> KeptPage {
        request.storage[KeptPageRenderingKey.self] = true
        defer { request.storage[KeptPageRenderingKey.self] = nil }
        let parts = try make()
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
            version: version, expires: expires, status: parts.status,
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

    let version: Int
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
