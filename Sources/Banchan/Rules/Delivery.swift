public import Foundation
import enum Platform.TextLimits

/// Where an order goes and who takes it: what checkout asks for, and what a saved address holds.
/// Made only through `Delivery.Address.checked`, so a stored one always keeps these rules.
public enum Delivery {
    /// How it travels: 새벽배송 (the next morning, when ordered before the shop's cut-off) or 택배.
    public enum Slot: String, Codable, Sendable, CaseIterable {
        case dawn, parcel

        /// The dishes' own label for it (`DeliveryType`), which says whether a dish can travel this way.
        var dishType: DeliveryType { self == .dawn ? .dawn : .parcel }
    }

    /// How the buyer means to pay, as PortOne names it (`pay_method`, or the easy-pay provider).
    public enum PaymentMethod: String, Codable, Sendable, CaseIterable {
        case card, trans, vbank, phone, kakaopay, naverpay, tosspay
    }

    /// A recipient at an address. `phone` is kept as `010-1234-5678`.
    public struct Address: Codable, Sendable, Hashable {
        public let recipient: String
        public let phone: String
        public let postcode: String?
        public let address: String
        public let addressDetail: String

        /// The fields as typed, checked: the first one that breaks its rule.
        public static func checked(recipient: String?, phone: String?, postcode: String?, address: String?, addressDetail: String?) throws(DeliveryProblem) -> Address {
            guard Delivery.fits(recipient, characters: 30) else { throw .recipient }
            let recipient = Delivery.trimmed(recipient)
            guard !recipient.isEmpty else { throw .recipient }
            guard let phone = Delivery.formattedPhone(phone ?? "") else { throw .phone }
            let postcode = Delivery.trimmed(postcode)
            guard postcode.isEmpty || (postcode.count == 5 && postcode.allSatisfy(\.isASCIIDigit)) else {
                throw .postcode
            }
            guard Delivery.fits(address, characters: 200) else { throw .address }
            let address = Delivery.trimmed(address)
            guard address.count >= 4 else { throw .address }
            guard Delivery.fits(addressDetail, characters: 100) else { throw .addressDetail }
            let detail = Delivery.trimmed(addressDetail)
            return Address(recipient: recipient, phone: phone, postcode: postcode.isEmpty ? nil : postcode, address: address, addressDetail: detail)
        }

        public init(recipient: String, phone: String, postcode: String?, address: String, addressDetail: String) {
            self.recipient = recipient
            self.phone = phone
            self.postcode = postcode
            self.address = address
            self.addressDetail = addressDetail
        }

        /// The address on one line, as a label or courier reads it.
        public var line: String {
            [postcode.map { "(\($0))" }, address, addressDetail.isEmpty ? nil : addressDetail].compactMap { $0 }.joined(separator: " ")
        }
    }

    /// A courier note is at most this long.
    public static let noteLimit = 200

    /// The text as typed (nil: nothing) within a length of `String.fits` (four bytes a character).
    static func fits(_ text: String?, characters: Int) -> Bool { (text ?? "").fits(characters: characters, bytes: characters * TextLimits.bytesPerCharacter) }

    /// What was typed without the spaces and line breaks around it ("" for nothing).
    static func trimmed(_ text: String?) -> String { (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }

    /// A Korean phone number as `010-1234-5678` (`02-123-4567` for Seoul's lines), or nil for one
    /// that is not: mobiles `01[016789]` with 10 or 11 digits, other lines 9 to 11. `+82` is read as `0`.
    public static func formattedPhone(_ typed: String) -> String? {
        var digits = typed.filter { !" -().".contains($0) }
        if digits.hasPrefix("+82") { digits = "0" + digits.dropFirst(3) }
        guard digits.allSatisfy(\.isASCIIDigit), digits.hasPrefix("0"), (9...11).contains(digits.count) else { return nil }
        let mobile = digits.hasPrefix("01")
        if mobile { guard ["010", "011", "016", "017", "018", "019"].contains(String(digits.prefix(3))), digits.count >= 10 else { return nil } }
        let area = digits.hasPrefix("02") ? 2 : 3
        let rest = digits.dropFirst(area)
        let middle = rest.count - 4
        guard middle >= 3 else { return nil }
        return "\(digits.prefix(area))-\(rest.prefix(middle))-\(rest.suffix(4))"
    }
}

/// Which field of a delivery breaks its rule; its `code` is the API's error code.
public enum DeliveryProblem: Error, Equatable, Sendable {
    case recipient, phone, postcode, address, addressDetail, note

    public var code: String {
        switch self {
        case .recipient: return "invalid_recipient"
        case .phone: return "invalid_phone"
        case .postcode: return "invalid_postcode"
        case .address: return "invalid_address"
        case .addressDetail: return "invalid_address_detail"
        case .note: return "invalid_note"
        }
    }
}

/// When the next 새벽배송 arrives: orders placed before the cut-off (Korea's time) arrive before 7
/// the next morning, later ones the morning after.
public struct DawnSchedule: Sendable, Equatable {
    /// Minutes after midnight in Korea (22:00 → 1320).
    public let cutoffMinutes: Int

    public init(cutoffMinutes: Int) { self.cutoffMinutes = cutoffMinutes }

    /// Korea's calendar (UTC+9); the platform's `Calendar.korea`, which domain code does not import.
    private static let korea: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Seoul") ?? TimeZone(secondsFromGMT: 9 * 3600) ?? calendar.timeZone
        return calendar
    }()

    /// `yyyy-MM-dd` of the morning an order placed `now` arrives.
    public func arrivalDay(placedAt now: Date) -> String {
        let calendar = Self.korea
        let parts = calendar.dateComponents([.hour, .minute], from: now)
        let minutes = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let days = minutes < cutoffMinutes ? 1 : 2
        let day = calendar.date(byAdding: .day, value: days, to: calendar.startOfDay(for: now)) ?? now
        let ymd = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02d", ymd.year ?? 1970, ymd.month ?? 1, ymd.day ?? 1)
    }

    /// The cut-off as `22:00`.
    public var cutoffText: String { String(format: "%02d:%02d", cutoffMinutes / 60, cutoffMinutes % 60) }

    /// Reads `HH:mm`.
    public static func parse(_ text: String) -> DawnSchedule? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCIIDigit) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        return DawnSchedule(cutoffMinutes: hour * 60 + minute)
    }
}

/// What checkout asks for besides the dishes: the address, how it travels, a note for the courier
/// and how the buyer means to pay.
public struct DeliveryRequest: Sendable, Equatable {
    public let address: Delivery.Address
    public let slot: Delivery.Slot
    public let note: String
    public let paymentMethod: Delivery.PaymentMethod

    public init(address: Delivery.Address, slot: Delivery.Slot, note: String?, paymentMethod: Delivery.PaymentMethod) throws(DeliveryProblem) {
        guard Delivery.fits(note, characters: Delivery.noteLimit) else { throw .note }
        let note = Delivery.trimmed(note)
        self.address = address
        self.slot = slot
        self.note = note
        self.paymentMethod = paymentMethod
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
