package import Vapor

/// What a link to a page shows when it is pasted into KakaoTalk, a messenger or a feed: Open Graph
/// and Twitter card tags in the page's head. Every page has one (the page's title, the app's
/// description, the app's card); pages worth sharing say more (a group's invitation, a dish, a
/// review's photo). Images are JPEG or PNG (KakaoTalk draws no SVG) at absolute `PUBLIC_URL`
/// addresses, since a crawler resolves nothing against the page.
package struct LinkPreview: Sendable {
    /// Nil: the page's title.
    package var title: String?
    /// Nil: the app's description (`app.description`).
    package var description: String?
    /// A raster image: a path on this site (`/images/app/card.png`) or an absolute URL.
    package var image: String?
    package var imageWidth: Int?
    package var imageHeight: Int?
    package var imageAlt: String?
    /// The address the link stands for (a path on this site); nil: the page's own path. A
    /// group's lobby names its `/join/{pin}` link, the one people share.
    package var path: String?
    /// `website`, or `article` for a review.
    package var type = "website"

    /// The app's card (1200×630, `Resources/icons/draw_app_icons.py`).
    package static let appCard = (path: "/images/app/card.png", width: 1_200, height: 630)

    package init(title: String? = nil, description: String? = nil, image: String? = nil, imageWidth: Int? = nil, imageHeight: Int? = nil,
                 imageAlt: String? = nil, path: String? = nil, type: String = "website") {
        self.title = title
        self.description = description
        self.image = image
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.imageAlt = imageAlt
        self.path = path
        self.type = type
    }

    /// The tags, escaped for the head. `pageTitle` is the page's own title (without the app's name).
    package func tags(_ request: Request, pageTitle: String) -> String {
        let publicURL = request.application.settings.publicURL
        func absolute(_ address: String) -> String { address.hasPrefix("/") ? publicURL + address : address }
        let title = self.title ?? pageTitle
        let description = self.description ?? request.t("app.description")
        let siteName = request.t("app.name")
        let url = absolute(path ?? request.url.path)
        var image = self.image.map(absolute), width = imageWidth, height = imageHeight
        if image == nil { (image, width, height) = (publicURL + Self.appCard.path, Self.appCard.width, Self.appCard.height) }
        var tags: [(attribute: String, name: String, content: String)] = [
            ("name", "description", description),
            ("property", "og:site_name", siteName),
            ("property", "og:type", type),
            ("property", "og:title", title),
            ("property", "og:description", description),
            ("property", "og:url", url),
            ("property", "og:locale", Self.locale(request.language)),
        ]
        if let image {
            tags.append(("property", "og:image", image))
            if let width, let height {
                tags.append(("property", "og:image:width", String(width)))
                tags.append(("property", "og:image:height", String(height)))
            }
            tags.append(("property", "og:image:alt", imageAlt ?? title))
        }
        tags += [
            ("name", "twitter:card", "summary_large_image"),
            ("name", "twitter:title", title),
            ("name", "twitter:description", description),
        ]
        if let image { tags.append(("name", "twitter:image", image)) }
        return tags.map { #"<meta \#($0.attribute)="\#($0.name)" content="\#(Markup.escape($0.content))"/>"# }.joined()
    }

    static func locale(_ language: Language) -> String {
        switch language {
        case .ko: return "ko_KR"
        case .en: return "en_US"
        case .ja: return "ja_JP"
        }
    }
}
