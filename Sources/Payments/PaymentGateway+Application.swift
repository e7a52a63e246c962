import Platform
package import Vapor

extension Application {
    private struct PaymentGatewayKey: StorageKey { typealias Value = PaymentGatewayBox }
    private struct PaymentGatewayBox: Sendable { let gateway: (any PaymentGateway)? }

    /// The configured payment provider; nil when payments are off (production without keys).
    /// One for the whole app: the shop's orders and the burger map app's donation ask the same one.
    package var paymentGateway: (any PaymentGateway)? {
        get { configured(PaymentGatewayKey.self).gateway }
        set { storage[PaymentGatewayKey.self] = PaymentGatewayBox(gateway: newValue) }
    }

    /// Sets `paymentGateway` from the settings (`PAYMENT_GATEWAY` and PortOne's keys), and runs
    /// the job that settles the refunds owed with it (`Refunds`).
    package func usePaymentGateway(_ setting: PaymentGatewaySetting) {
        lifecycle.use(Refunds.retryJob())
        AppMetrics.countersStartAtZero(["whatweeat_refund_failures_total"])
        switch setting {
        case .test: paymentGateway = TestPaymentGateway()
        case .portOne(let url, let key, let secret):
            paymentGateway = PortOneGateway(baseURL: url, apiKey: key, apiSecret: secret, client: http.client.shared, clock: siteClock)
        case .none: paymentGateway = nil
        }
    }
}

extension PaymentGateway {
    /// The payment as the provider reports it, or the error a client is told: 422
    /// `payment_not_found` when the provider does not know it, 503 when it cannot be asked (logged).
    package func lookUp(_ paymentID: String, logger: Logger) async throws -> ProviderPayment {
        do {
            return try await payment(id: paymentID)
        } catch PaymentGatewayError.unknownPayment {
            throw AppError.invalid("payment_not_found")
        } catch {
            logger.warning("payment provider unavailable", metadata: ["error": "\(error)"])
            throw AppError(.serviceUnavailable, "payment_provider_unavailable")
        }
    }
}
