package import Vapor

/// `X-Served-By: <INSTANCE_NAME>` on every answer (the WebSocket handshake's too), so whoever
/// runs several instances behind a proxy can tell which one answered; nothing when unnamed.
package struct InstanceHeaderMiddleware: AsyncMiddleware {
    package let name: String

    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await next.respond(to: request)
        response.headers.replaceOrAdd(name: "X-Served-By", value: name)
        return response
    }

    package init(name: String) {
        self.name = name
    }
}
