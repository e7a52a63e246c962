import Accounts
import NIOFoundationEssentialsCompat
import Platform
import SocketIO
package import XCTVapor

/// A browser stand-in: keeps cookies, reads the CSRF token from forms, posts url-encoded forms.
package struct CookieBrowser {
    package let app: Application
    package var cookies: [String: String] = [:]
    package var lastCSRFToken: String?

    package init(app: Application, cookies: [String: String] = [:], lastCSRFToken: String? = nil) {
        self.app = app
        self.cookies = cookies
        self.lastCSRFToken = lastCSRFToken
    }

    /// A browser that signed up through the `/signup` form (a fresh address, password
    /// `password1`): its session cookie and CSRF token kept.
    package static func signedUp(_ app: Application, nickname: String, file: StaticString = #filePath, line: UInt = #line) async throws -> CookieBrowser {
        var browser = CookieBrowser(app: app)
        _ = try await browser.get("/signup")
        let created = try await browser.post("/signup", form: [
            "email": "\(UUID().uuidString.prefix(8).lowercased())@example.com", "nickname": nickname, "password": "password1",
        ])
        XCTAssertEqual(created.status, .seeOther, created.text, file: file, line: line)
        return browser
    }

    /// A browser signed in through the `/login` form as an account the test made (password `password1`).
    package static func signedIn(_ app: Application, as email: String?, file: StaticString = #filePath, line: UInt = #line) async throws -> CookieBrowser {
        var browser = CookieBrowser(app: app)
        _ = try await browser.get("/login")
        let signedIn = try await browser.post("/login", form: ["email": try XCTUnwrap(email, "the member's address", file: file, line: line), "password": "password1"])
        XCTAssertEqual(signedIn.status, .seeOther, signedIn.text, file: file, line: line)
        return browser
    }

    /// `extraHeaders` go with the browser's own (an `Origin` for a socket handshake).
    package mutating func get(_ path: String, extraHeaders: HTTPHeaders = [:]) async throws -> TestingHTTPResponse {
        var headers = requestHeaders()
        for (name, value) in extraHeaders { headers.replaceOrAdd(name: name, value: value) }
        let response = try await app.send(.GET, path, headers: headers)
        remember(response)
        return response
    }

    package mutating func post(_ path: String, form: [String: String], includeCSRF: Bool = true) async throws -> TestingHTTPResponse {
        try await post(path, fields: form.map { ($0.key, $0.value) }, includeCSRF: includeCSRF)
    }

    /// A form with repeated names (`disliked[]` twice), in order.
    package mutating func post(_ path: String, fields form: [(String, String)], includeCSRF: Bool = true) async throws -> TestingHTTPResponse {
        var fields = form
        if includeCSRF, let token = lastCSRFToken { fields.append(("_csrf", token)) }
        let body = fields.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
        var headers = requestHeaders()
        headers.contentType = .urlEncodedForm
        let response = try await app.send(.POST, path, raw: body, headers: headers)
        remember(response)
        return response
    }

    /// A multipart form (a file input), with the page's CSRF token as a field of it.
    package mutating func post(_ path: String, parts: [UploadPart], includeCSRF: Bool = true) async throws -> TestingHTTPResponse {
        var all = parts
        if includeCSRF, let token = lastCSRFToken { all.append(UploadPart(name: "_csrf", filename: nil, contentType: "text/plain", data: Data(token.utf8))) }
        let (body, contentType) = UploadPart.multipart(all)
        var headers = requestHeaders()
        headers.replaceOrAdd(name: .contentType, value: contentType)
        let response = try await app.testable().performTest(request: TestingHTTPRequest(
            method: .POST, url: URI(path: path), headers: headers, body: ByteBuffer(data: body)))
        remember(response)
        return response
    }

    package func cookieAttributes(_ response: TestingHTTPResponse, _ name: String) -> String? {
        response.headers[.setCookie].first { $0.hasPrefix("\(name)=") }
    }

    private func requestHeaders() -> HTTPHeaders {
        var headers: HTTPHeaders = ["Accept": "text/html"]
        if !cookies.isEmpty {
            headers.add(name: .cookie, value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        return headers
    }

    private mutating func remember(_ response: TestingHTTPResponse) {
        for header in response.headers[.setCookie] {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { continue }
            let expired = header.lowercased().contains("max-age=0") || header.contains("1970")
            if expired || pair[1].isEmpty { cookies[String(pair[0])] = nil } else { cookies[String(pair[0])] = String(pair[1]) }
        }
        if let range = response.text.range(of: "name=\"_csrf\" value=\"") {
            let rest = response.text[range.upperBound...]
            lastCSRFToken = String(rest.prefix { $0 != "\"" })
        }
    }

    private func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

/// The JSON a page hands its scripts (its `#page-config` block, `PageConfig.block`).
package func pageConfig(_ page: TestingHTTPResponse, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
    let text = page.text
    let start = try XCTUnwrap(text.range(of: #"<script type="application/json" id="page-config">"#), file: file, line: line)
    let end = try XCTUnwrap(text.range(of: "</script>", range: start.upperBound..<text.endIndex), file: file, line: line)
    // `Markup.scriptJSON` writes `</` as `<\/` inside the block; JSON reads it back as `</`.
    let json = String(text[start.upperBound..<end.lowerBound])
    return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], file: file, line: line)
}

/// The opening tag of the element with this id (`<a id="state-fab" class="…" href="…">`).
package func openingTag(_ page: TestingHTTPResponse, _ id: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let text = page.text
    let mark = try XCTUnwrap(text.range(of: #" id="\#(id)""#), "#\(id) is on the page", file: file, line: line)
    let open = try XCTUnwrap(text.range(of: "<", options: .backwards, range: text.startIndex..<mark.lowerBound), file: file, line: line)
    let close = try XCTUnwrap(text.range(of: ">", range: mark.upperBound..<text.endIndex), file: file, line: line)
    return String(text[open.lowerBound..<close.upperBound])
}
