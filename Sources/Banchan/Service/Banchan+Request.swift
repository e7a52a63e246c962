import Fluent
import Platform
import Vapor

extension Request {
    /// The order named by `:order` in the path; anything not a UUID is an unknown order (404).
    func orderIDParameter() throws -> UUID {
        guard let raw = parameters.get("order"), let id = UUID(uuidString: raw) else { throw AppError.notFound("order_not_found") }
        return id
    }

    /// Whose cart and orders: the signed-in account, else the device in `X-Device-Token`.
    func shopOwner() throws -> Principal {
        try principal(orThrow: "shop_owner_required")
    }

    /// A price as the reader's language writes it: `12,900원` in Korean, `₩12,900` in English and
    /// Japanese pages (the API and the shipped app keep `Won.format`'s Korean).
    package func won(_ amount: Int) -> String {
        language == .ko ? Won.format(amount) : "₩" + GroupedDigits.format(amount)
    }

    /// The delivery fee rule in the reader's language (`2,500원 (40,000원 이상 구매 시 무료)`),
    /// for the API's answers and the pages alike.
    var deliveryFeeLabel: String {
        let rule = application.deliveryFeeRule
        return t("banchan.fee_rule", ["fee": won(rule.fee), "free": won(rule.freeFrom)])
    }
}
