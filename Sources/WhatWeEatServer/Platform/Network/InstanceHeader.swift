import Vapor

/// `X-Served-By: <INSTANCE_NAME>` on every answer (the WebSocket handshake's too), so whoever
/// runs several instances behind a proxy can tell which one answered; nothing when unnamed.
struct InstanceHeaderMiddleware: AsyncMiddleware {
    let name: String

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await next.respond(to: request)
        response.headers.replaceOrAdd(name: "X-Served-By", value: name)
        return response
    }
}
