public import Vapor

/// The one error type of the app. Every 4xx a client sees is one of these, rendered as
/// `{"error": {"code": "...", "message": "..."}}` with the message translated at render time.
///
/// `code` is stable and machine-readable; `messageKey` names the text in the translation
/// catalogs (it defaults to `error.<code>`); `arguments` fill its `{placeholders}`.
public struct AppError: Error, Sendable {
    public let status: HTTPResponseStatus
    public let code: String
    public let messageKey: String
    public let arguments: [String: String]
    public let headers: HTTPHeaders

    public init(
        _ status: HTTPResponseStatus, _ code: String, messageKey: String? = nil,
        arguments: [String: String] = [:], headers: HTTPHeaders = [:]
    ) {
        self.status = status
        self.code = code
        self.messageKey = messageKey ?? "error.\(code)"
        self.arguments = arguments
        self.headers = headers
    }
}

extension AppError {
    public static func badRequest(_ code: String, _ arguments: [String: String] = [:]) -> AppError {
        AppError(.badRequest, code, arguments: arguments)
    }
    /// Input that parsed but breaks a rule (too short, wrong format, out of range).
    public static func invalid(_ code: String, _ arguments: [String: String] = [:]) -> AppError {
        AppError(.unprocessableEntity, code, arguments: arguments)
    }
    public static func notFound(_ code: String = "not_found") -> AppError {
        AppError(.notFound, code)
    }
    public static func conflict(_ code: String, _ arguments: [String: String] = [:]) -> AppError {
        AppError(.conflict, code, arguments: arguments)
    }
    public static let unauthorized = AppError(.unauthorized, "unauthorized")
    public static let forbidden = AppError(.forbidden, "forbidden")
}

/// The JSON body of every error response.
package struct ErrorBody: Content {
    package struct Detail: Content {
        package let code: String
        package let message: String

        package init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }
    package let error: Detail

    package init(error: Detail) {
        self.error = error
    }
}
