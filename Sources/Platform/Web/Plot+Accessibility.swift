package import Plot

// The accessibility attributes our pages write again and again, by name. Values go through the
// escaping `.attribute(named:value:)` of Plot+EscapedAttributes.swift.

extension Node {
    /// `role="…"` (`alert`, `status`, `dialog`, `tablist`…).
    package static func role(_ role: String) -> Node { .attribute(named: "role", value: role) }
    /// `aria-live`: how eagerly assistive technology reads changes.
    package static func ariaLive(_ politeness: AriaLive) -> Node { .attribute(named: "aria-live", value: politeness.rawValue) }
    /// `aria-describedby`: the id of the element that explains this one (a hint under a field).
    package static func ariaDescribedBy(_ id: String) -> Node { .attribute(named: "aria-describedby", value: id) }
    /// `aria-labelledby`: the id of the element that names this one.
    package static func ariaLabelledBy(_ id: String) -> Node { .attribute(named: "aria-labelledby", value: id) }
    /// `aria-current`: this link is the page (or step) the visitor is on.
    package static func ariaCurrent(_ value: String = "page") -> Node { .attribute(named: "aria-current", value: value) }
    /// `aria-pressed`: a toggle button's state.
    package static func ariaPressed(_ pressed: Bool) -> Node { .attribute(named: "aria-pressed", value: pressed ? "true" : "false") }
}

package enum AriaLive: String {
    case polite, assertive, off
}

extension Attribute {
    /// `aria-describedby` inside an element's attribute list (inputs).
    package static func ariaDescribedBy(_ id: String) -> Attribute { .attribute(named: "aria-describedby", value: id) }
}
