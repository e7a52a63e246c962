package import Plot

/// A service's bottom tab bar (the menu game's, the burger map's, the mates'): an icon and a label
/// per tab, the current one marked for screen readers (`aria-current`) and by its class
/// (`tab current`); each service's stylesheet gives it its look.
package enum TabBar {
    package struct Item {
        package let path: String
        package let emoji: String
        package let label: String
        package let isCurrent: Bool

        package init(path: String, emoji: String, label: String, isCurrent: Bool) {
            self.path = path
            self.emoji = emoji
            self.label = label
            self.isCurrent = isCurrent
        }
    }

    package static func render(label: String, classes: String, items: [Item]) -> Node<HTML.BodyContext> {
        .nav(
            .class("tab-bar \(classes)"), .ariaLabel(label),
            .forEach(items) { item in
                .a(
                    .href(item.path), .class(item.isCurrent ? "tab current" : "tab"), item.isCurrent ? .ariaCurrent() : .empty,
                    .span(.class("tab-icon"), .ariaHidden(true), .text(item.emoji)),
                    .span(.class("tab-label"), .text(item.label))
                )
            }
        )
    }
}
