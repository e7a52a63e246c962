import Foundation

extension Fixtures {
    /// The shop's checkout form (`POST /shop/orders`) filled in as a buyer would: a new address
    /// for 김반찬, sent by 택배, paid by card, under `key` so a resubmission orders once. Tests add
    /// or change fields on top (`saveAddress`, a bad `phone`, …).
    package static func checkoutForm(key: String) -> [String: String] {
        [
            "idempotencyKey": key,
            "addressChoice": "new",
            "recipient": "김반찬",
            "phone": "010-1234-5678",
            "postcode": "",
            "address": "서울시 마포구 월드컵로 1",
            "addressDetail": "101동 202호",
            "slot": "parcel",
            "note": "",
            "paymentMethod": "card",
        ]
    }
}
