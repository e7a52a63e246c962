import Foundation
import Platform
import Plot
import Vapor

/// What a shared menu-game link shows: a result's own page (`/play/menus/{slug}`, the link the
/// result's share button hands out) and a group's invitation (the lobby, and the onboarding a
/// first visit is sent to, both name the group's `/join/{pin}` link). Messengers get a raster card
/// (`Resources/catalogs/menu-cards/`, one per emoji) and words in the page's language.
extension MenuGamePages {
    /// `/play/menus/{slug}`: "How about kimchi stew today?" with the menu's picture, the way to play
    /// and the way to find it nearby. Open to everyone, no onboarding redirect: a crawler lands here.
    func sharedMenu(req: Request) async throws -> Response {
        guard let slug = req.parameters.get("slug"),
              let menu = req.application.menuCatalog.snapshot.menus.first(where: { $0.id == slug }) else {
            throw AppError.notFound("menu_not_found")
        }
        let name = menu.name[req.language]
        let title = req.t("menu_game.share.title", ["name": name])
        var extras = MenuGamePages.withMapLibrary(req, MenuGamePages.extras(req, tab: nil, scripts: [Self.script.shared]))
        extras.preview = LinkPreview(title: "\(menu.emoji) \(title)", description: req.t("menu_game.share.description"),
                                     image: MenuImages.cardPath(menu), imageWidth: LinkPreview.appCard.width, imageHeight: LinkPreview.appCard.height,
                                     imageAlt: name)
        // The map apps search Korean names: their places are Korean (a reader in English still finds 김치찌개).
        let query = menu.name.ko
        let card: Node<HTML.BodyContext> = .section(
            .class("card shared-menu stack"), .id("shared-menu"), .ariaLabelledBy("shared-menu-title"),
            .data(named: "menu", value: menu.id), .data(named: "query", value: query),
            .img(.class("shared-menu-image"), .src(req.menuGame.imageURL(for: menu)), .alt(name), .width(240), .height(240)),
            .h1(.id("shared-menu-title"), .text(title)),
            .p(.class("lead"), .text(req.t("menu_game.share.description"))),
            .a(.class("button primary wide"), .id("shared-menu-play"), .href(PlayPath.home()), .text("🎴 " + req.t("menu_game.share.play"))),
            .a(.class("button wide"), .id("shared-menu-nearby"), .href(ElsewhereMaps.kakaoSearch(query)),
               .attribute(named: "rel", value: "noopener"), .text("📍 " + req.t("menu_game.result.find_nearby"))),
            ElsewhereMaps.links(req, query: query),
            MenuGamePages.nearbyPlaces(req)
        )
        return Layout.page(req, title: name, extras: extras, main: .group(card, MenuGamePages.stringsConfig(req, extra: ["map": MenuGamePages.nearbyMap(req)])))
    }

    /// A group's invitation where its link is pasted: the PIN and what joining means.
    static func invitation(_ req: Request, pin: String) -> LinkPreview {
        LinkPreview(title: "👥 " + req.t("menu_game.preview.group_title"), description: req.t("menu_game.preview.group_description", ["pin": pin]),
                    path: PlayPath.joinLink(pin))
    }

    /// The invitation of the group a first visit was sent to onboard before (`next` is its lobby),
    /// where a messenger's crawler lands from `/join/{pin}`. A game that is over says so, and
    /// leads to its result, instead of inviting (the UX review: a closed game's card still
    /// invited). The PIN is looked up as every page looks one up (`menuGroup(pin:)`: a miss
    /// counts against the guessing budgets), and an unknown one gets the plain invitation, so
    /// the card tells nothing a lobby would not.
    static func invitation(_ req: Request, next: String) async -> LinkPreview? {
        guard let match = next.wholeMatch(of: /\/play\/groups\/([1-9][0-9]{5})/) else { return nil }
        let pin = String(match.1)
        if let group = try? await req.menuGroup(pin: pin), group.isClosed {
            return LinkPreview(title: "🍽️ " + req.t("menu_game.preview.closed_title"),
                               description: req.t("menu_game.preview.closed_description", ["pin": pin]), path: PlayPath.groupResult(pin))
        }
        return invitation(req, pin: pin)
    }
}

/// The search for a menu in 카카오맵 and 네이버지도, through their public web links: every menu has
/// restaurants there, where our map has burger places only. The result page's script turns them
/// into the apps' schemes on phones and adds the person's position when the browser already may
/// tell it (Public/js/menu-game/nearby.js); the shared menu page uses them as they are.
enum ElsewhereMaps {
    static func kakaoSearch(_ query: String) -> String {
        "https://map.kakao.com/link/search/" + (query.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? "")
    }

    static func naverSearch(_ query: String) -> String {
        "https://map.naver.com/p/search/" + (query.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? "")
    }

    /// The two links side by side; without a query (the result page's, filled by its script) they
    /// open the maps' home pages.
    static func links(_ req: Request, query: String?) -> Node<HTML.BodyContext> {
        .nav(
            .class("nearby-elsewhere"), .id("nearby-elsewhere"), .ariaLabel(req.t("menu_game.nearby.elsewhere")),
            .a(.class("button"), .id("nearby-kakao"), .href(query.map(kakaoSearch) ?? "https://map.kakao.com/"),
               .attribute(named: "rel", value: "noopener"), .text(req.t("menu_game.nearby.kakao"))),
            .a(.class("button"), .id("nearby-naver"), .href(query.map(naverSearch) ?? "https://map.naver.com/"),
               .attribute(named: "rel", value: "noopener"), .text(req.t("menu_game.nearby.naver")))
        )
    }
}
