import Foundation

/// Who carries a shipped order: the couriers Korean shops hand parcels to, each with the page
/// where a buyer follows a parcel by its 송장번호, and the shop's own van (새벽배송), which has none.
public enum Courier: String, Codable, Sendable, CaseIterable {
    case cj, epost, hanjin, lotte, logen
    /// The shop's own delivery (새벽배송): no tracking number, no tracking page.
    case shop

    /// The courier's own page for one parcel. The number is digits only (`Shipment.make`), so it
    /// goes into the query as it is.
    public func trackingURL(_ number: String) -> String? {
        switch self {
        case .cj: return "https://trace.cjlogistics.com/next/tracking.html?wblNo=\(number)"
        case .epost: return "https://service.epost.go.kr/trace.RetrieveDomRigiTraceList.comm?sid1=\(number)"
        case .hanjin: return "https://www.hanjin.com/kor/CMS/DeliveryMgr/WaybillResult.do?mCode=MN038&schLang=KR&wblnumText2=\(number)"
        case .lotte: return "https://www.lotteglogis.com/home/reservation/tracking/linkView?InvNo=\(number)"
        case .logen: return "https://www.ilogen.com/web/personal/trace/\(number)"
        case .shop: return nil
        }
    }

    /// Whether a parcel handed to it has a 송장번호.
    public var hasTrackingNumber: Bool { self != .shop }
}

/// How a shipped order travels: its courier and, for a courier's parcel, the 송장번호.
public struct Shipment: Sendable, Hashable, Codable {
    public let courier: Courier
    /// Digits only; nil for the shop's own delivery.
    public let trackingNumber: String?

    /// Couriers' numbers are 10 to 13 digits today; a little room either side for the next format.
    public static let trackingNumberLength = 8...20

    /// The shipment an operator typed (`courier`, `trackingNumber`): spaces and hyphens in the
    /// number are dropped (labels print `6789-1234-5678`). Throws the field that is wrong: an
    /// unknown courier, or a courier's parcel without a number of digits of a courier's length.
    /// Nil when neither is given (an order shipped without saying how).
    public static func make(courier: String?, trackingNumber: String?) throws(ShipmentProblem) -> Shipment? {
        let typedCourier = courier?.trimmingCharacters(in: .whitespaces) ?? ""
        let digits = (trackingNumber ?? "").filter { !$0.isWhitespace && $0 != "-" }
        if typedCourier.isEmpty {
            guard digits.isEmpty else { throw .courier }
            return nil
        }
        guard let courier = Courier(rawValue: typedCourier) else { throw .courier }
        guard courier.hasTrackingNumber else { return Shipment(courier: courier, trackingNumber: nil) }
        guard trackingNumberLength.contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw .trackingNumber }
        return Shipment(courier: courier, trackingNumber: digits)
    }

    public init(courier: Courier, trackingNumber: String?) {
        self.courier = courier
        self.trackingNumber = courier.hasTrackingNumber ? trackingNumber : nil
    }

    /// The courier's page for this parcel, when it has one.
    public var trackingURL: String? { trackingNumber.flatMap(courier.trackingURL) }
}

/// The field of a typed shipment that is wrong, by its API name.
public enum ShipmentProblem: String, Error, Sendable {
    case courier
    case trackingNumber
}
