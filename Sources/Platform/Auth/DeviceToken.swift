import Vapor

/// The anonymous token a device acts with when nobody is signed in: the iOS apps send it as
/// `X-Device-Token` (the menu game's also as `?token=`), browsers keep one in the `wwe_device`
/// cookie (`BrowserDevice`). 16–512 visible ASCII characters (UUIDs, push tokens): it is stored
/// and written into pages.
package enum DeviceToken {
    package static let header = "X-Device-Token"
    static let minimumLength = 16
    static let maximumLength = 512

    /// The token, trimmed (a header's value); 422 `invalid_device_token` when absent or malformed.
    package static func validate(_ raw: String?) throws -> String {
        try validate(raw, trimming: true)
    }

    /// The same; `trimming: false` for a token in an address or a body, where the document allows
    /// nothing around it.
    package static func validate(_ raw: String?, trimming: Bool) throws -> String {
        guard let token = trimming ? raw?.trimmingCharacters(in: .whitespacesAndNewlines) : raw,
              (minimumLength...maximumLength).contains(token.utf8.count),
              token.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw AppError.invalid("invalid_device_token", ["min": String(minimumLength)])
        }
        return token
    }
}

extension Request {
    /// The `X-Device-Token` header, validated, or nil when the request has none.
    func deviceTokenHeader() throws -> String? {
        try headers.first(name: DeviceToken.header).map(DeviceToken.validate)
    }
}
