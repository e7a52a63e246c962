import Crypto
import Foundation
import Platform
@testable import SesacStudyApp
import Vapor
import XCTest

/// The cookie that binds a 새싹 app's socket to the uid it signed in as (issue 37).
final class SesacSocketBindingTests: XCTestCase {
    /// The binding cookie names its uid while valid; a changed byte, another key or an expired one names nobody.
    func testTheSocketBindingCookieNamesItsUIDUntilItExpires() throws {
        let key = SymmetricKey(size: .bits256)
        let now = Date()
        let value = SesacSocketBinding.value(uid: "uid.with/odd+chars", key: key, now: now)
        XCTAssertEqual(SesacSocketBinding.uid(in: value, key: key, now: now), "uid.with/odd+chars")
        XCTAssertEqual(SesacSocketBinding.uid(in: value, key: key, now: now.addingTimeInterval(SesacSocketBinding.lifetime - 60)), "uid.with/odd+chars")
        XCTAssertNil(SesacSocketBinding.uid(in: value, key: key, now: now.addingTimeInterval(SesacSocketBinding.lifetime + 1)), "expired")
        XCTAssertNil(SesacSocketBinding.uid(in: value, key: SymmetricKey(size: .bits256), now: now), "another server's key")
        let parts = value.split(separator: ".").map(String.init)
        let otherUID = Data("victim".utf8).base64URLEncodedString()
        XCTAssertNil(SesacSocketBinding.uid(in: [otherUID, parts[1], parts[2]].joined(separator: "."), key: key, now: now), "another uid")
        XCTAssertNil(SesacSocketBinding.uid(in: [parts[0], String(Int(parts[1])! + 86_400), parts[2]].joined(separator: "."), key: key, now: now),
                     "a longer life")
        XCTAssertNil(SesacSocketBinding.uid(in: "", key: key, now: now))
        var headers = HTTPHeaders()
        headers.add(name: .cookie, value: "other=1; \(SesacSocketBinding.cookieName)=\(value)")
        XCTAssertEqual(SesacSocketBinding.uid(in: headers, key: key, now: now), "uid.with/odd+chars")
    }
}
