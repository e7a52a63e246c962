import Accounts
import Foundation
import Payments
import Platform
import Plot
import Vapor

/// My profile (`/mates/profile`: the card, reputation and comments, and the form `profile.js`
/// saves through `PUT /profile`) and the shop (`/mates/shop`: faces and backgrounds, a preview
/// on my card, buying and wearing them through `shop.js`).
extension MatesPages {
    func profile(req: Request) async throws -> Response {
        let (profile, _) = try await mine(req)
        let thisYear = Calendar(identifier: .gregorian).component(.year, from: req.application.matesEnvironment.now())
        return try await page(
            req, title: req.t("mates.profile.title"), tab: .profile, script: "profile",
            config: ["profile": try json(req, profile), "ages": [MatesRules.ages.lowerBound, MatesRules.ages.upperBound],
                     "maxTopics": MatesRules.maxTopics, "maxTopicCharacters": MatesRules.maxTopicCharacters],
            alsoShows: [String(thisYear)]
        ) {
            let summary: Node<HTML.BodyContext> = .section(
                .class("card profile-card"),
                Self.card(req, avatar: profile.avatar, background: profile.background, nickname: profile.nickname),
                .a(.id("open-shop"), .class("button small"), .href(Tab.shop.path), .text(req.t("mates.profile.change_look"))),
                .element(named: "details", nodes: [
                    .class("reputation-details"), .attribute(named: "open", value: "open"),
                    .element(named: "summary", text: req.t("mates.profile.reputation")),
                    reputationGrid(req, profile.reputation),
                    .h3(.text(req.t("mates.profile.comments"))),
                    commentList(req, profile.comments),
                ])
            )
            let form: Node<HTML.BodyContext> = .plainForm(
                .id("profile-form"), .class("card stack"), .attribute(named: "novalidate", value: "novalidate"),
                genderField(req, profile.gender),
                birthYearField(req, profile.birthYear, thisYear: thisYear),
                topicsField(req, profile.topics),
                searchableField(req, profile.searchable),
                ageRangeField(req, min: profile.ageMin, max: profile.ageMax),
                .p(.class("form-error"), .id("profile-error"), .role("alert"), .attribute(named: "hidden", value: "hidden")),
                .button(.type(.submit), .id("save-profile"), .class("button primary wide"), .text(req.t("mates.profile.save")))
            )
            let suspended: Node<HTML.BodyContext> = profile.suspended
                ? .p(.id("suspended-notice"), .class("notice danger"), .role("alert"), .text(req.t("error.suspended"))) : .empty
            return .group(
                .h1(.class("visually-hidden"), .text(req.t("mates.profile.title"))),
                suspended, summary, form,
                .p(.class("muted verified-line"), .text(req.t("mates.profile.verified", ["destination": profile.verified.destination])))
            )
        }
    }

    private func commentList(_ req: Request, _ comments: [String]) -> Node<HTML.BodyContext> {
        guard !comments.isEmpty else { return .p(.id("no-comments"), .class("muted"), .text(req.t("mates.profile.no_comments"))) }
        return .ul(.id("comments"), .class("comment-list"), .forEach(comments.prefix(20)) { .li(.text($0)) })
    }

    private func genderField(_ req: Request, _ current: String) -> Node<HTML.BodyContext> {
        .fieldset(
            .class("gender-choice"),
            .legend(req.t("mates.profile.gender")),
            .forEach(MatesGender.allCases) { gender in
                .label(.class("channel-option"),
                       .input(.type(.radio), .name("gender"), .value(gender.rawValue), .id("gender-\(gender.rawValue)"),
                              .attribute(named: "checked", value: current == gender.rawValue ? "checked" : nil)),
                       .span(.text(req.t("mates.gender.\(gender.rawValue)"))))
            }
        )
    }

    private func birthYearField(_ req: Request, _ current: Int?, thisYear: Int) -> Node<HTML.BodyContext> {
        let years = Array(((thisYear - MatesRules.ages.upperBound)...(thisYear - MatesRules.ages.lowerBound)).reversed())
        // Eighty options were most of the page's rendering; they are the same for everyone who
        // chose the same year, so kept per year chosen (and per calendar year, language).
        let choices = req.application.pageFragments.node("mates.birth-years.\(thisYear).\(current.map(String.init) ?? "none")",
                                                         language: req.language, version: 0) { () -> Node<HTML.BodyContext> in
            .group(.choice(value: "", selected: current == nil, req.t("mates.profile.birth_year_none")),
                   .forEach(years) { year in .choice(value: String(year), selected: current == year, String(year)) })
        }
        return .div(
            .class("field"),
            .label(.for("birth-year"), .text(req.t("mates.profile.birth_year"))),
            .selectBox(.id("birth-year"), .attribute(named: "name", value: "birthYear"), choices),
            .p(.class("hint"), .text(req.t("mates.profile.birth_year_hint")))
        )
    }

    private func topicsField(_ req: Request, _ topics: [String]) -> Node<HTML.BodyContext> {
        .div(
            .class("field"),
            .label(.for("topic-input"), .text(req.t("mates.profile.topics"))),
            .ul(.id("my-topics"), .class("chip-list removable"), .attribute(named: "aria-label", value: req.t("mates.profile.topics")),
                .forEach(topics) { topic in .li(.class("chip"), .text(topic)) }),
            .div(
                .class("chip-input"),
                .input(.id("topic-input"), .type(.text), .attribute(named: "maxlength", value: String(MatesRules.maxTopicCharacters)),
                       .placeholder(req.t("mates.topics.placeholder")), .attribute(named: "enterkeyhint", value: "done")),
                .button(.type(.button), .id("topic-add"), .class("button small"), .text(req.t("mates.topics.add")))
            )
        )
    }

    private func searchableField(_ req: Request, _ searchable: Bool) -> Node<HTML.BodyContext> {
        .div(
            .class("field switch-field"),
            .label(.for("searchable"), .text(req.t("mates.profile.searchable"))),
            .input(.type(.checkbox), .id("searchable"), .name("searchable"), .attribute(named: "role", value: "switch"),
                   .attribute(named: "checked", value: searchable ? "checked" : nil)),
            .p(.class("hint"), .text(req.t("mates.profile.searchable_hint")))
        )
    }

    private func ageRangeField(_ req: Request, min: Int, max: Int) -> Node<HTML.BodyContext> {
        .fieldset(
            .class("age-range"),
            .legend(req.t("mates.profile.ages")),
            .p(.id("age-value"), .class("age-value"), .attribute(named: "aria-live", value: "polite"),
               .text(req.t("mates.profile.ages_value", ["min": String(min), "max": String(max)]))),
            .div(
                .class("range-slider"),
                .div(.class("range-track"), .ariaHidden(true), .span(.class("range-fill"), .id("age-fill"))),
                ageHandle(req, "age-min", "ageMin", value: min),
                ageHandle(req, "age-max", "ageMax", value: max)
            )
        )
    }

    private func ageHandle(_ req: Request, _ id: String, _ name: String, value: Int) -> Node<HTML.BodyContext> {
        .input(.type(.range), .id(id), .name(name), .attribute(named: "min", value: String(MatesRules.ages.lowerBound)),
               .attribute(named: "max", value: String(MatesRules.ages.upperBound)), .attribute(named: "step", value: "1"),
               .value(String(value)), .attribute(named: "aria-label", value: req.t(id == "age-min" ? "mates.profile.age_min" : "mates.profile.age_max")))
    }

    /// The six counters, in the order of `ReputationCategory`.
    func reputationGrid(_ req: Request, _ counts: [Int]) -> Node<HTML.BodyContext> {
        .ul(
            .class("reputation-grid"), .id("reputation"),
            .forEach(Array(ReputationCategory.allCases.enumerated())) { index, category in
                let count = index < counts.count ? counts[index] : 0
                return .li(.class(count > 0 ? "reputation earned" : "reputation"),
                           .span(.text(req.t("mates.reputation.\(category.rawValue)"))),
                           .strong(.text(String(count))))
            }
        )
    }

    // MARK: Shop

    func shop(req: Request) async throws -> Response {
        let (profile, _) = try await mine(req)
        let owned = try await req.mates.collection(of: profile.id, avatar: profile.avatar, background: profile.background)
        let testPurchases = req.application.appStoreVerifier is TestAppStoreVerifier
        let kind = req.query[String.self, at: "tab"] == "background" ? MatesItemKind.background : .avatar
        // The card shows my face, background and name beside what the config holds (what I own).
        return try await page(
            req, title: req.t("mates.shop.title"), tab: .shop, script: "shop",
            config: ["testPurchases": testPurchases, "collection": try json(req, CollectionResponse(owned))],
            alsoShows: [String(profile.avatar), String(profile.background), profile.nickname]
        ) {
            let preview: Node<HTML.BodyContext> = .section(
                .class("card shop-preview"),
                Self.card(req, avatar: profile.avatar, background: profile.background, nickname: profile.nickname),
                .button(.type(.button), .id("wear"), .class("button primary wide"), .attribute(named: "disabled", value: "disabled"),
                        .text(req.t("mates.shop.wear")))
            )
            let tabs: Node<HTML.BodyContext> = .nav(
                .class("feed-tabs shop-tabs"), .ariaLabel(req.t("mates.shop.tabs")),
                .forEach(MatesItemKind.allCases) { item in
                    .a(.href("\(Tab.shop.path)?tab=\(item.rawValue)"), .id("shop-tab-\(item.rawValue)"),
                       item == kind ? .ariaCurrent() : .empty, .text(req.t("mates.shop.tab.\(item.rawValue)")))
                }
            )
            // The same for everyone of a language who owns the same items of this kind: kept.
            let ownedOfKind = kind == .avatar ? owned.avatars : owned.backgrounds
            let items: Node<HTML.BodyContext> = req.application.pageFragments.node(
                "mates.shop.items.\(kind.rawValue).\(ownedOfKind.map(String.init).joined(separator: ","))", language: req.language, version: 0
            ) {
                .ul(
                    .id("shop-items"), .class("shop-grid"),
                    .forEach(MatesShopCatalog.items.filter { $0.kind == kind }) { item in shopItem(req, item, owned: ownedOfKind.contains(item.index)) }
                )
            }
            let note: Node<HTML.BodyContext> = .p(.class("hint"), .id("shop-note"),
                                                  .text(req.t(testPurchases ? "mates.shop.test_purchases" : "mates.shop.in_app")))
            return .group(.h1(.class("visually-hidden"), .text(req.t("mates.shop.title"))), preview, tabs, note, items)
        }
    }

    private func shopItem(_ req: Request, _ item: MatesShopItem, owned: Bool) -> Node<HTML.ListContext> {
        let name = req.t("mates.item.\(item.kind.rawValue).\(item.index)")
        let picture = item.kind == .avatar ? Self.avatarURL(item.index) : Self.backgroundURL(item.index)
        let action: Node<HTML.BodyContext> = owned
            ? .span(.class("owned-label"), .text(req.t("mates.shop.owned")))
            : .button(.type(.button), .class("button small buy"), .text(req.t("mates.shop.buy", ["price": wonText(item.price, req)])))
        return .li(
            .class(owned ? "shop-item owned" : "shop-item"), .id("item-\(item.id)"),
            .data(named: "kind", value: item.kind.rawValue), .data(named: "index", value: String(item.index)),
            .data(named: "product", value: item.productID ?? ""), .data(named: "name", value: name),
            .button(.type(.button), .class("shop-preview-button"), .ariaLabel(req.t("mates.shop.preview", ["name": name])),
                    .img(.src(picture), .alt(""))),
            .span(.class("shop-item-name"), .text(name)),
            action
        )
    }

    /// 1,200원 / ₩1,200 in the page's language.
    func wonText(_ price: Int, _ req: Request) -> String {
        req.t("mates.shop.price", ["price": GroupedDigits.format(price)])
    }
}
