import Accounts
import Foundation
import Platform
import Plot
import Vapor

/// Starting a search (`/mates/search`: recommended topics, what others nearby want, my own, then
/// search) and the two tabs of cards while searching (`/mates/nearby`: nearby people and those
/// who asked me, with ask / accept, refresh, change topics and stop). `search.js`, `nearby.js`.
extension MatesPages {
    func search(req: Request) async throws -> Response {
        let (profile, state) = try await mine(req)
        if state.state == .matched, let match = state.matchId { return Layout.redirect(to: MatesPath.chat(match)) }
        return try await page(
            req, title: req.t("mates.search.title"), tab: .home, script: "search",
            config: ["profile": try json(req, profile), "state": try json(req, state), "start": startPoint(req),
                     "maxTopics": MatesRules.maxTopics, "maxTopicCharacters": MatesRules.maxTopicCharacters]
        ) {
            .group(
                .h1(.text(req.t("mates.search.title"))),
                profile.birthYear == nil ? needsBirthYear(req) : .empty,
                .section(
                    .class("topic-section"), .ariaLabelledBy("recommended-title"),
                    .h2(.id("recommended-title"), .text(req.t("mates.search.recommended"))),
                    .ul(.id("recommended-topics"), .class("chip-list pickable")),
                    .h2(.id("others-title"), .text(req.t("mates.search.others_want"))),
                    .ul(.id("others-topics"), .class("chip-list pickable")),
                    .p(.id("topics-status"), .class("muted"), .role("status"), .text(req.t("mates.search.loading")))
                ),
                .section(
                    .class("topic-section"), .ariaLabelledBy("mine-title"),
                    .h2(.id("mine-title"), .text(req.t("mates.search.mine"))),
                    .ul(.id("my-topics"), .class("chip-list removable"),
                        .forEach(profile.topics) { topic in .li(.class("chip"), .text(topic)) }),
                    .form(
                        .id("topic-form"), .class("chip-input"),
                        .label(.for("topic-input"), .class("visually-hidden"), .text(req.t("mates.topics.placeholder"))),
                        .input(.id("topic-input"), .type(.search), .attribute(named: "maxlength", value: String(MatesRules.maxTopicCharacters)),
                               .placeholder(req.t("mates.topics.placeholder")), .attribute(named: "enterkeyhint", value: "done")),
                        .button(.type(.submit), .id("topic-add"), .class("button small"), .text(req.t("mates.topics.add")))
                    ),
                    .p(.class("field-error"), .id("search-error"), .role("alert"), .attribute(named: "hidden", value: "hidden"))
                ),
                .button(.type(.button), .id("start-search"), .class("button primary wide sticky-action"), .text(req.t("mates.search.start")))
            )
        }
    }

    func nearby(req: Request) async throws -> Response {
        let (profile, state) = try await mine(req)
        switch (state.state, state.matchId) {
        case (.matched, let match?): return Layout.redirect(to: MatesPath.chat(match))
        case (.idle, _): return Layout.redirect(to: MatesPath.search())
        default: break
        }
        let requested = req.query[String.self, at: "tab"] == "requested"
        func tab(_ id: String, _ key: String, selected: Bool) -> Node<HTML.BodyContext> {
            .button(.type(.button), .role("tab"), .id("tab-\(id)"), .attribute(named: "aria-controls", value: "panel-\(id)"),
                    .attribute(named: "aria-selected", value: selected ? "true" : "false"),
                    .span(.text(req.t(key))), .span(.class("tab-count"), .id("count-\(id)")))
        }
        func panel(_ id: String, selected: Bool, emptyKey: String) -> Node<HTML.BodyContext> {
            .section(
                .id("panel-\(id)"), .role("tabpanel"), .attribute(named: "aria-labelledby", value: "tab-\(id)"),
                selected ? .empty : .attribute(named: "hidden", value: "hidden"),
                .ol(.id("\(id)-list"), .class("mate-list")),
                .div(
                    .id("\(id)-empty"), .class("card empty-state"), .attribute(named: "hidden", value: "hidden"),
                    // The way on is below the panels (`#change-topics`): said once, not twice.
                    .p(.text(req.t(emptyKey)))
                )
            )
        }
        return try await page(
            req, title: req.t("mates.nearby.title"), tab: .home, script: "nearby",
            config: ["profile": try json(req, profile), "state": try json(req, state), "start": startPoint(req)]
        ) {
            .group(
                .div(
                    .class("feed-heading"),
                    .h1(.text(req.t("mates.nearby.title"))),
                    .button(.type(.button), .id("refresh"), .class("button small"), .text(req.t("mates.nearby.refresh")))
                ),
                .div(.class("nearby-tabs"), .role("tablist"), .ariaLabel(req.t("mates.nearby.tabs")),
                     tab("nearby", "mates.nearby.tab.nearby", selected: !requested), tab("requested", "mates.nearby.tab.requested", selected: requested)),
                panel("nearby", selected: !requested, emptyKey: "mates.nearby.empty"),
                panel("requested", selected: requested, emptyKey: "mates.nearby.empty_requested"),
                .div(
                    .class("nearby-actions"),
                    .a(.id("change-topics"), .class("button"), .href(MatesPath.search()), .text(req.t("mates.nearby.change_topics"))),
                    .button(.type(.button), .id("stop-search"), .class("button danger-outline"), .text(req.t("mates.nearby.stop")))
                )
            )
        }
    }

    /// Where a search or a nearby list is measured from until the browser says where it is: the
    /// point in the address (the home map's centre), else the map's default place.
    func startPoint(_ req: Request) -> [Double] {
        if let lat = req.queryValue("lat").flatMap(Double.init), let lon = req.queryValue("lon").flatMap(Double.init),
           let point = try? Coordinate(lat: lat, lon: lon) {
            return [point.lat, point.lon]
        }
        return [MapLibrary.defaultCenter.lat, MapLibrary.defaultCenter.lon]
    }
}
