import Platform
/// Which payment provider confirms payments (`PAYMENT_GATEWAY`); the shop's settings hold it.
package enum PaymentGatewaySetting: Sendable, Equatable {
    /// Approves payments marked as test; refused in production.
    case test
    /// PortOne (iamport) v1 REST API.
    case portOne(url: String, apiKey: String, apiSecret: String)
    /// No provider configured: orders can be placed but not paid (production without keys).
    case none
}
