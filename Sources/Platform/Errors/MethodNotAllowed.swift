package import Vapor

/// Tells "no such path" from "not with this method": when the router finds nothing for a request
/// whose path another method answers, the answer is 405 `method_not_allowed` with `Allow`
/// listing the methods that path takes (JSON or a page, like every error). Installed innermost,
/// around the router only, after every route is registered; paths are matched by
/// RoutingKit's rules, so `:parameters` and `**` mean what they mean to Vapor. A handler whose
/// parameter is not of its kind is treated alike (`Parameters.routeValue`): a value that
/// is another route's constant (`DELETE …/sessions/sign-out-others`, which only `POST` takes) is
/// 405, and anything else 404.
package struct MethodNotAllowedMiddleware: AsyncMiddleware {
    /// Every registered route as its method and path pattern.
    private let routes: [(method: String, path: [PathComponent])]

    package init(routes: [Route]) {
        self.routes = routes.map { ($0.method.rawValue, $0.path) }
    }

    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch where error is RouteNotFound || error is NotThisRoute {
            let allowed = allowedMethods(for: request.url.path)
            guard !allowed.isEmpty, !allowed.contains(request.method.rawValue) else { throw AppError.notFound() }
            throw AppError(.methodNotAllowed, "method_not_allowed", headers: ["Allow": allowed.joined(separator: ", ")])
        }
    }

    /// The methods of the most specific path pattern that matches `path` (the one the document
    /// describes: `/menus/random` rather than `/menus/{id}`); HEAD wherever GET is (Vapor serves it).
    func allowedMethods(for path: String) -> [String] {
        let segments = path.split(separator: "/").map(String.init)
        let matching = routes.filter { Self.matches($0.path, segments) }
        guard let best = matching.map({ $0.path }).max(by: { Self.specificity($0).lexicographicallyPrecedes(Self.specificity($1)) })
        else { return [] }
        let bestShape = Self.shape(best)
        var methods = Set(matching.filter { Self.shape($0.path) == bestShape }.map { $0.method })
        if methods.contains("GET") { methods.insert("HEAD") }
        return methods.sorted()
    }

    /// A pattern with its parameter names left out: `/dishes/:hash` and `/dishes/:id` are one path.
    package static func shape(_ pattern: [PathComponent]) -> [String] {
        pattern.map { component in
            if case .parameter = component { return ":" }
            return component.description
        }
    }

    /// Constants outrank parameters, which outrank wildcards, segment by segment from the left,
    /// as in the router.
    static func specificity(_ pattern: [PathComponent]) -> [Int] {
        pattern.map { component in
            switch component {
            case .constant: return 3
            case .parameter: return 2
            case .anything: return 1
            case .catchall: return 0
            }
        }
    }

    /// RoutingKit's rules: a constant matches itself (case-sensitive, as configured), `:name` and
    /// `*` one segment, `**` the rest (at least one segment).
    package static func matches(_ pattern: [PathComponent], _ segments: [String]) -> Bool {
        for (index, component) in pattern.enumerated() {
            switch component {
            case .catchall: return segments.count > index
            case .constant(let constant): guard index < segments.count, segments[index] == constant else { return false }
            case .parameter, .anything: guard index < segments.count else { return false }
            }
        }
        return segments.count == pattern.count
    }
}

extension Parameters {
    /// The path parameter `name` as a `T` (a UUID), or `NotThisRoute`: the path names nothing this
    /// route serves (`MethodNotAllowedMiddleware` then tells 404 from 405).
    package func routeValue<T: LosslessStringConvertible>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let value = get(name, as: T.self) else { throw NotThisRoute() }
        return value
    }
}

/// A route's parameter that is not of its kind: answered as if the router had found no route.
package struct NotThisRoute: Error {
    package init() {}
}
