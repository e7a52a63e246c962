package import Vapor

/// A page's address, written once: the route table registers its pattern
/// (`pages.get(ShopPath.dish, use: dish)`) and links, redirects and form actions fill it in
/// (`ShopPath.dish(hash)`, `ShopPath.cart()`), so a route and the links to it cannot drift apart.
/// Each feature keeps its pages' paths in one `<Name>Path` enum of these. How many values a link
/// gives is checked by the compiler: `PagePath` takes none, `PagePath1` one (no page has two).
package protocol PagePattern: Sendable, ExpressibleByStringLiteral, CustomStringConvertible where StringLiteralType == String {
    /// `/shop/dishes/:hash`: constants and `:name` parameters.
    var pattern: String { get }
}

extension PagePattern {
    package var components: [PathComponent] { pattern.pathComponents }
    package var description: String { pattern }
}

/// A page without parameters (`/shop/cart`).
package struct PagePath: PagePattern {
    package let pattern: String

    package init(stringLiteral pattern: String) {
        self.pattern = pattern
    }

    package func callAsFunction() -> String { pattern }
}

/// A page with one parameter (`/shop/dishes/:hash`).
package struct PagePath1: PagePattern {
    package let pattern: String

    package init(stringLiteral pattern: String) {
        self.pattern = pattern
    }

    /// The address with `value` in place of the parameter. Values are written as they are (ids,
    /// hashes, PINs: nothing that needs escaping); a UUID is written in lowercase.
    package func callAsFunction(_ value: some CustomStringConvertible) -> String {
        let text = (value as? UUID)?.uuidString.lowercased() ?? value.description
        var filled = false
        return pattern.split(separator: "/", omittingEmptySubsequences: false).map { part -> String in
            guard part.hasPrefix(":"), !filled else { return String(part) }
            filled = true
            return text
        }.joined(separator: "/")
    }
}

extension RoutesBuilder {
    @discardableResult
    package func get<Answer: AsyncResponseEncodable>(_ path: some PagePattern, use handler: @escaping @Sendable (Request) async throws -> Answer) -> Route {
        on(.GET, path.components, use: handler)
    }

    @discardableResult
    package func post<Answer: AsyncResponseEncodable>(_ path: some PagePattern, use handler: @escaping @Sendable (Request) async throws -> Answer) -> Route {
        on(.POST, path.components, use: handler)
    }
}
