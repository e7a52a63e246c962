import Platform
import Vapor

/// The audit log in words (the UX review: "status=cancel_requested"). Each entry's action and
/// subject read as a sentence (`admin.audit.action.<action>`, `admin.audit.subject.<type>`), and
/// its fields as "상태: 결제 완료 → 취소 요청됨" (`admin.audit.field.<field>`, with the values the
/// pages already have words for: an order's status, a courier, a role, yes and no). A key without
/// words (an action added later) is shown as written, never dropped.
enum AuditWords {
    static func action(_ req: Request, _ action: String) -> String {
        words(req, "admin.audit.action.\(action)") ?? action
    }

    static func subject(_ req: Request, type: String, id: String) -> String {
        words(req, "admin.audit.subject.\(type)", ["id": id]) ?? "\(type) \(id)"
    }

    /// One line per field that was before, after or both, in a steady order: "name: before → after".
    static func changes(_ req: Request, before: [String: String]?, after: [String: String]?) -> [String] {
        let fields = Set((before ?? [:]).keys).union((after ?? [:]).keys).sorted()
        return fields.map { field in
            let name = words(req, "admin.audit.field.\(field)") ?? field
            let old = before?[field].map { value(req, field, $0) }, new = after?[field].map { value(req, field, $0) }
            switch (old, new) {
            case let (old?, new?) where old != new: return "\(name): \(old) → \(new)"
            case let (_, new?): return "\(name): \(new)"
            case let (old?, nil): return "\(name): \(old) → —"
            case (nil, nil): return name
            }
        }
    }

    /// A field's value in the words pages use for it; as written otherwise (titles, prices, counts).
    static func value(_ req: Request, _ field: String, _ value: String) -> String {
        if value.isEmpty { return "—" }
        switch (field, value) {
        case (_, "true"): return req.t("admin.audit.yes")
        case (_, "false"): return req.t("admin.audit.no")
        case ("status", _): return words(req, "banchan.status.\(value)") ?? value
        case ("courier", _): return words(req, "banchan.courier.\(value)") ?? value
        case ("role", _): return words(req, "admin.people.role.\(value)") ?? value
        case ("refund", _): return words(req, "admin.audit.refund.\(value)") ?? value
        case ("section", _): return words(req, "banchan.section.\(value)") ?? value
        default: return value
        }
    }

    private static func words(_ req: Request, _ key: String, _ arguments: [String: String] = [:]) -> String? {
        req.application.translator.has(key) ? req.t(key, arguments) : nil
    }
}
