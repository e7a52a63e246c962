import Plot

/// The shared page frame (head, header, footer) rendered once per shape and language, with markers
/// where each request's own parts go: its title, the header's links, the signed-in viewer's
/// nickname and unread count, the page itself, the footer's path and CSRF token, the bar under the
/// page. A request renders only those and joins them with the kept pieces.
///
/// Plot builds a tree of closures per element and writes each element's content through a buffer
/// per level; the frame is a few dozen elements and a dozen catalog look-ups that came out the same
/// on every page, and made up a fifth of a light page's time.
enum LayoutFrame {
    package enum Slot: Int, CaseIterable, Sendable {
        case title, preview, headerLinks, bellLabel, unreadCount, nickname, main, next, csrf, bottomBar
        /// A kept page's own (`Layout.keptPage`): the signed-in viewer's id and API token in its
        /// script's config, and the reader's parts of its body (`Layout.readerPart`).
        case viewerID, accessToken, part0, part1, part2, part3, part4, part5

        /// The reader's parts a kept page may have.
        static let parts: [Slot] = [.part0, .part1, .part2, .part3, .part4, .part5]
    }

    /// What makes two frames differ: the language, whether the header is a signed-in viewer's
    /// (the account menu, the bell's script) and whether its unread count shows, and the page's
    /// stylesheets, scripts and body class.
    package struct Key: Hashable, Sendable {
        let language: Language
        let signedIn: Bool
        let unreadShown: Bool
        let shape: String

        package init(language: Language, signedIn: Bool, unreadShown: Bool = false, extras: PageExtras) {
            self.language = language
            self.signedIn = signedIn
            self.unreadShown = signedIn && unreadShown
            let vendors = (extras.vendorStylesheets + extras.vendorScripts).map { $0.url + "#" + ($0.integrity ?? "") }
            shape = ([extras.bodyClass ?? ""] + extras.stylesheets + ["|"] + extras.scripts + ["|"] + vendors).joined(separator: "\n")
        }
    }

    /// The kept pieces: `segments[0]`, then each slot's value followed by the next segment.
    package struct Template: Sendable {
        package let segments: [String]
        package let slots: [Slot]

        /// The page: every slot's value (already escaped for where it lands) between the pieces.
        /// A slot that appears twice (the CSRF token) is asked for once.
        package func fill(_ value: (Slot) -> String) -> String {
            var values: [String] = []
            values.reserveCapacity(slots.count)
            var asked = [String?](repeating: nil, count: Slot.allCases.count)
            var length = 0
            for segment in segments { length += segment.utf8.count }
            for slot in slots {
                let text = asked[slot.rawValue] ?? value(slot)
                asked[slot.rawValue] = text
                length += text.utf8.count
                values.append(text)
            }
            var page = ""
            page.reserveCapacity(length)
            page += segments[0]
            for index in slots.indices {
                page += values[index]
                page += segments[index + 1]
            }
            return page
        }

        /// Splits a rendered frame at its markers.
        package init(rendered: String) {
            var segments: [String] = []
            var slots: [Slot] = []
            let parts = rendered.split(separator: LayoutFrame.opening, omittingEmptySubsequences: false)
            segments.append(String(parts[0]))
            for part in parts.dropFirst() {
                guard part.hasPrefix(LayoutFrame.nonce), let close = part.firstIndex(of: LayoutFrame.closing),
                      let number = Int(part[part.index(part.startIndex, offsetBy: LayoutFrame.nonce.count)..<close]),
                      let slot = Slot(rawValue: number)
                else {
                    // Not ours: a private-use character in someone's text (a kept page's body holds
                    // reviews and nicknames), which cannot carry this process's nonce.
                    segments[segments.count - 1] += String(LayoutFrame.opening) + part
                    continue
                }
                slots.append(slot)
                segments.append(String(part[part.index(after: close)...]))
            }
            self.segments = segments
            self.slots = slots
        }
    }

    static let opening: Character = "\u{E000}"
    static let closing: Character = "\u{E001}"
    /// Random per process, after every opening: text from outside (a review, a nickname) may hold
    /// the private-use characters, never this.
    static let nonce = String(UInt64.random(in: 1 ... .max), radix: 36) + ":"

    /// Where `slot`'s value goes, in the frame being made.
    package static func marker(_ slot: Slot) -> String { "\(opening)\(nonce)\(slot.rawValue)\(closing)" }

    /// Frames are few (pages × languages × signed in or not); the bound only keeps an unexpected
    /// variety from growing without end.
    private static let capacity = 1_024
    private static let templates = BoundedMemory<Key, Template>(name: "layout_frames", capacity: capacity)

    /// The frame kept for `key`, if made.
    package static func kept(_ key: Key) -> Template? { templates[key] }

    package static func template(for key: Key, make: () -> HTML) -> Template {
        if let kept = templates[key] { return kept }
        let made = Template(rendered: make().render())
        templates.keep(made, for: key)
        return made
    }
}
