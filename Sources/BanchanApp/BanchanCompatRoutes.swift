import Banchan
import Fluent
import Platform
import Vapor

/// The routes the shipped 배민찬 iOS app calls, with their exact JSON: `GET /main`, `/soup`,
/// `/side` (a section's dishes) and `GET /detail/{hash}`. Prices are strings like `12,640원`.
struct BanchanCompatRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get("main") { try await self.section(.main, $0) }
        routes.get("soup") { try await self.section(.soup, $0) }
        routes.get("side") { try await self.section(.side, $0) }
        routes.get("detail", ":hash", use: detail)
    }

    /// `{"statusCode": 200, "body": [...]}`.
    struct SectionResponse: Content {
        let statusCode: Int
        let body: [Item]
    }

    /// One card; `n_price` only when discounted and `badge` only when there is one, as the app expects.
    package struct Item: Content {
        let detailHash: String
        package let image: String
        package let alt: String
        let deliveryType: [String]
        package let title: String
        package let description: String
        let nPrice: String?
        let sPrice: String
        package let badge: [String]?

        package enum CodingKeys: String, CodingKey {
            case detailHash = "detail_hash", image, alt, deliveryType = "delivery_type", title, description
            case nPrice = "n_price", sPrice = "s_price", badge
        }

        package init(_ dish: Dish, images: BanchanImages.URLs) {
            detailHash = dish.hash
            image = images.rasterMain(dish.hash)
            alt = dish.title
            deliveryType = dish.deliveryTypes.map(\.rawValue)
            title = dish.title
            description = dish.description
            nPrice = dish.isDiscounted ? dish.originalPrice.map(Won.format) : nil
            sPrice = Won.format(dish.salePrice)
            badge = dish.badges.isEmpty ? nil : dish.badges.map(\.rawValue)
        }

        // The app's field order; absent fields are left out, never null.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(detailHash, forKey: .detailHash)
            try container.encode(image, forKey: .image)
            try container.encode(alt, forKey: .alt)
            try container.encode(deliveryType, forKey: .deliveryType)
            try container.encode(title, forKey: .title)
            try container.encode(description, forKey: .description)
            try container.encodeIfPresent(nPrice, forKey: .nPrice)
            try container.encode(sPrice, forKey: .sPrice)
            try container.encodeIfPresent(badge, forKey: .badge)
        }
    }

    func section(_ section: DishSection, _ req: Request) async throws -> SectionResponse {
        let images = BanchanImages.URLs(publicURL: req.application.settings.publicURL)
        return SectionResponse(statusCode: 200, body: req.banchan.dishes(in: section).map { Item($0.dish, images: images) })
    }

    /// `{"hash": "HBDEF", "data": {...}}`.
    struct DetailResponse: Content {
        package struct Data: Content {
            let topImage: String
            package let thumbImages: [String]
            let productDescription: String
            package let point: String
            package let deliveryInfo: String
            package let deliveryFee: String
            package let prices: [String]
            let detailSection: [String]

            package enum CodingKeys: String, CodingKey {
                case topImage = "top_image", thumbImages = "thumb_images", productDescription = "product_description", point
                case deliveryInfo = "delivery_info", deliveryFee = "delivery_fee", prices, detailSection = "detail_section"
            }
        }
        let hash: String
        let data: Data
    }

    func detail(req: Request) async throws -> DetailResponse {
        let dish = try await req.banchan.dish(hash: req.parameters.get("hash") ?? "").dish
        let images = BanchanImages.URLs(publicURL: req.application.settings.publicURL)
        // The original price first, then the sale price; just the sale price when not discounted.
        let prices = (dish.isDiscounted ? [dish.originalPrice!] : []) + [dish.salePrice]
        return DetailResponse(hash: dish.hash, data: .init(
            topImage: images.rasterMain(dish.hash), thumbImages: images.rasterThumbs(dish), productDescription: dish.description,
            point: Won.format(dish.pointsPerUnit), deliveryInfo: req.application.deliveryInfo(of: dish, .ko), deliveryFee: req.application.deliveryFeeRule.label,
            prices: prices.map(Won.format), detailSection: images.rasterDetails(dish)))
    }
}
