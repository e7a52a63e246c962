package import Plot

// Forms whose parts are plain body content. Plot's form context has no fieldsets, legends or
// selects, and a page whose script submits the form needs none of Plot's form typing; so pages
// build such forms from these, with the attributes of every other element (escaped as always).
extension Node where Context == HTML.BodyContext {
    /// `<form>` with body content inside (fieldsets, selects, any element).
    package static func plainForm(_ nodes: Node...) -> Node { .element(named: "form", nodes: nodes) }

    package static func fieldset(_ nodes: Node...) -> Node { .element(named: "fieldset", nodes: nodes) }

    package static func legend(_ text: String, visuallyHidden: Bool = false) -> Node {
        .element(named: "legend", nodes: [visuallyHidden ? .class("visually-hidden") : .empty, .text(text)])
    }

    /// `<select>` of `choice`s.
    package static func selectBox(_ nodes: Node...) -> Node { .element(named: "select", nodes: nodes) }

    /// `<option>` of a `selectBox`.
    package static func choice(value: String, selected: Bool, _ text: String) -> Node {
        .element(named: "option", nodes: [.attribute(named: "value", value: value, ignoreIfValueIsEmpty: false),
                                          .attribute(named: "selected", value: selected ? "selected" : nil), .text(text)])
    }
}
