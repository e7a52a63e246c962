import Foundation
import Plot
import Vapor

/// The one JSON block a page hands its scripts (`Public/js/shared/config.js` reads it): the
/// language, the CSRF token for script requests to page routes, the texts the scripts show, and
/// whatever else the page needs. A JSON block is data, not script, so the CSP allows it.
enum PageConfig {
    static func block(_ req: Request, stringPrefixes: [String] = [], values: [String: Any] = [:]) -> Node<HTML.BodyContext> {
        var strings: [String: String] = [:]
        for prefix in stringPrefixes {
            strings.merge(req.application.translator.texts(withPrefix: prefix, req.language)) { first, _ in first }
        }
        var object: [String: Any] = ["language": req.language.rawValue, "csrf": req.csrfToken, "strings": strings]
        for (key, value) in values { object[key] = value }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return .script(.attribute(named: "type", value: "application/json"), .id("page-config"), .raw(Markup.scriptJSON(data)))
    }
}
