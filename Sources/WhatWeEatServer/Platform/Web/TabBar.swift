import Plot

/// A service's bottom tab bar (the burger map's, the mates'): an icon and a label per tab, the
/// current one marked for screen readers and by a bar (burger-map.css styles `.map-tabs`).
enum TabBar {
    struct Item {
        let path: String
        let emoji: String
        let label: String
        let isCurrent: Bool
    }

    static func render(label: String, classes: String, items: [Item]) -> Node<HTML.BodyContext> {
        .nav(
            .class("tab-bar map-tabs \(classes)"), .ariaLabel(label),
            .forEach(items) { item in
                .a(
                    .href(item.path), item.isCurrent ? .ariaCurrent() : .empty,
                    .span(.class("tab-icon"), .ariaHidden(true), .text(item.emoji)),
                    .span(.class("tab-label"), .text(item.label))
                )
            }
        )
    }
}
