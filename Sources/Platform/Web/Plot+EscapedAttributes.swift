import Platform
import Plot

// Plot writes attribute values exactly as given (`name="value"`), so a `"` in a nickname, a dish
// title or a `next` parameter would end the attribute and start markup of the sender's choosing.
// The declarations below have the same names and signatures as Plot's own string-valued attribute
// modifiers; inside this module they shadow Plot's, so every `.value(…)`, `.href(…)`, `.alt(…)`,
// `.attribute(named:value:)` … in our pages goes through `Markup.escape`, the one rule for
// attribute values (docs/DECISIONS.md). A Plot modifier that takes a string and is missing here
// would not be escaped, and neither would a Plot component that writes attributes itself (the
// head's `.title(…)` writes og/twitter `<meta content>`; `Layout` writes a plain `<title>`).
// `HostileValuesInPagesTests` renders every page field with a hostile value to catch both.

private func escaped<Context>(_ name: String, _ value: String?, ignoreIfValueIsEmpty: Bool = true) -> Attribute<Context> {
    Attribute(name: name, value: value.map(Markup.escape), ignoreIfValueIsEmpty: ignoreIfValueIsEmpty)
}

private func escapedNode<Context>(_ name: String, _ value: String?, ignoreIfValueIsEmpty: Bool = true) -> Node<Context> {
    .attribute(escaped(name, value, ignoreIfValueIsEmpty: ignoreIfValueIsEmpty) as Attribute<Context>)
}

// MARK: Text

extension Node {
    /// Text escaped by `Markup.escape` (which skips the copy when nothing needs escaping) rather than
    /// Plot's `escaped()`, which builds a string per character and was a twentieth of every page.
    /// Also stricter: Plot leaves an `&` that starts an entity as it is, so text that holds
    /// `&amp;` showed as `&`; here text always shows as written.
    static func text(_ text: String) -> Node { .raw(Markup.escape(text)) }
}

// MARK: Any attribute

extension Node {
    static func attribute(named name: String, value: String?, ignoreIfValueIsEmpty: Bool = true) -> Node {
        escapedNode(name, value, ignoreIfValueIsEmpty: ignoreIfValueIsEmpty)
    }
}

extension Attribute {
    static func attribute(named name: String, value: String?) -> Self { escaped(name, value) }
}

// MARK: Generic attributes

extension Attribute where Context: HTMLContext {
    static func id(_ id: String) -> Attribute { escaped("id", id) }
    static func `class`(_ className: String) -> Attribute { escaped("class", className) }
    static func data(named name: String, value: String) -> Attribute { escaped("data-\(name)", value) }
    static func title(_ title: String) -> Attribute { escaped("title", title) }
}

extension Node where Context: HTMLContext {
    static func id(_ id: String) -> Node { escapedNode("id", id) }
    static func `class`(_ className: String) -> Node { escapedNode("class", className) }
    static func data(named name: String, value: String) -> Node { escapedNode("data-\(name)", value) }
    static func title(_ title: String) -> Node { escapedNode("title", title) }
}

extension Attribute where Context: HTMLNamableContext {
    static func name(_ name: String) -> Attribute { escaped("name", name) }
}

extension Node where Context: HTMLNamableContext {
    static func name(_ name: String) -> Node { escapedNode("name", name) }
}

extension Attribute where Context: HTMLTypeContext {
    static func type(_ type: String) -> Attribute { escaped("type", type) }
}

extension Attribute where Context: HTMLValueContext {
    static func value(_ value: String) -> Attribute { escaped("value", value) }
}

extension Node where Context: HTMLValueContext {
    static func value(_ value: String) -> Node { escapedNode("value", value) }
}

// MARK: Links, sources and forms

extension Attribute where Context: HTMLLinkableContext {
    static func href(_ url: any URLRepresentable) -> Attribute { escaped("href", url.description) }
}

extension Node where Context: HTMLLinkableContext {
    static func href(_ url: any URLRepresentable) -> Node { escapedNode("href", url.description) }
}

extension Attribute where Context: HTMLSourceContext {
    static func src(_ url: any URLRepresentable) -> Attribute { escaped("src", url.description) }
}

extension Node where Context: HTMLSourceContext {
    static func src(_ url: any URLRepresentable) -> Node { escapedNode("src", url.description) }
}

extension Node where Context == HTML.FormContext {
    static func action(_ url: any URLRepresentable) -> Node { escapedNode("action", url.description) }
}

extension Node where Context == HTML.LabelContext {
    static func `for`(_ target: String) -> Node { escapedNode("for", target) }
}

extension Attribute where Context == HTML.InputContext {
    static func placeholder(_ placeholder: String) -> Attribute { escaped("placeholder", placeholder) }
}

extension Node where Context == HTML.TextAreaContext {
    static func placeholder(_ placeholder: String) -> Node { escapedNode("placeholder", placeholder) }
}

extension Attribute where Context == HTML.OptionContext {
    static func label(_ label: String) -> Attribute { escaped("label", label, ignoreIfValueIsEmpty: false) }
}

extension Node where Context == HTML.TimeContext {
    static func datetime(_ datetime: String) -> Node { escapedNode("datetime", datetime) }
}

// MARK: Text for people and machines

extension Attribute where Context == HTML.MetaContext {
    static func content(_ content: String) -> Attribute { escaped("content", content) }
}

extension Attribute where Context == HTML.ImageContext {
    /// Kept when empty: `alt=""` is how a decorative picture says so (screen readers skip it).
    static func alt(_ text: String) -> Attribute { escaped("alt", text, ignoreIfValueIsEmpty: false) }
}

extension Node where Context: HTML.BodyContext {
    static func ariaLabel(_ label: String) -> Node { escapedNode("aria-label", label) }
    static func ariaControls(_ child: String) -> Node { escapedNode("aria-controls", child) }
}

extension Node where Context: HTMLStylableContext {
    static func style(_ css: String) -> Node { escapedNode("style", css) }
}

extension Attribute where Context: HTMLIntegrityContext {
    static func integrity(_ hash: String) -> Attribute { escaped("integrity", hash) }
}

extension Node where Context: HTMLIntegrityContext {
    static func integrity(_ hash: String) -> Node { escapedNode("integrity", hash) }
}
