import Vapor

/// A page's address, written once: the route table registers its pattern
/// (`pages.get(ShopPath.dish, use: dish)`) and links, redirects and form actions fill it in
/// (`ShopPath.dish(hash)`, `ShopPath.cart()`), so a route and the links to it cannot drift apart.
/// Each feature keeps its pages' paths in one `<Name>Path` enum of these.
package struct PagePath: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// `/shop/dishes/:hash`: constants and `:name` parameters.
    package let pattern: String

    package init(stringLiteral pattern: String) {
        self.pattern = pattern
    }

    package var components: [PathComponent] { pattern.pathComponents }

    /// The address with `values` in place of the parameters, in order. Values are written as they
    /// are (ids, hashes, PINs: nothing that needs escaping); a UUID is written in lowercase.
    package func callAsFunction(_ values: any CustomStringConvertible...) -> String {
        var remaining = values[...]
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: false).map { part -> String in
            guard part.hasPrefix(":") else { return String(part) }
            guard let value = remaining.popFirst() else {
                preconditionFailure("\(pattern) needs a value for \(part)")
            }
            if let id = value as? UUID { return id.uuidString.lowercased() }
            return value.description
        }
        precondition(remaining.isEmpty, "\(pattern) takes \(values.count - remaining.count) values, not \(values.count)")
        return parts.joined(separator: "/")
    }

    package var description: String { pattern }
}

extension RoutesBuilder {
    @discardableResult
    package func get<Answer: AsyncResponseEncodable>(_ path: PagePath, use handler: @escaping @Sendable (Request) async throws -> Answer) -> Route {
        on(.GET, path.components, use: handler)
    }

    @discardableResult
    package func post<Answer: AsyncResponseEncodable>(_ path: PagePath, use handler: @escaping @Sendable (Request) async throws -> Answer) -> Route {
        on(.POST, path.components, use: handler)
    }
}
