import Foundation
import WhatWeEatKit
import WhatWeEatKitAsyncHTTPClient
import XCTest

/// The server these tests talk to: a real `whatweeat serve` that `Clients/swift/test` starts (a
/// fresh data folder, its URL in `WHATWEEAT_URL`). Without one the tests fail and say so.
enum ServerUnderTest {
    /// A client of the server, over AsyncHTTPClient or URLSession.
    static func client(language: String = "ko", transport: Transport = .asyncHTTPClient,
                       onTokensChange: @escaping @Sendable (Tokens?) -> Void = { _ in }) throws -> WhatWeEat {
        guard let raw = ProcessInfo.processInfo.environment["WHATWEEAT_URL"], let url = URL(string: raw) else {
            XCTFail("WHATWEEAT_URL is not set: run these tests with Clients/swift/test, which starts a server")
            throw CancellationError()
        }
        switch transport {
        case .asyncHTTPClient: return WhatWeEat(serverURL: url, language: language, asyncHTTPClient: .init(), onTokensChange: onTokensChange)
        case .urlSession: return WhatWeEat(serverURL: url, language: language, onTokensChange: onTokensChange)
        }
    }

    enum Transport { case asyncHTTPClient, urlSession }

    /// The checkout this package sits in (Clients/swift/../..): the server's own fixtures.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The code the server wrote to its log for `destination` (it has no mail server here).
    static func oneTimeCode(sentTo destination: String) async throws -> String {
        guard let log = ProcessInfo.processInfo.environment["WHATWEEAT_LOG"] else {
            XCTFail("WHATWEEAT_LOG is not set: run these tests with Clients/swift/test")
            throw CancellationError()
        }
        for _ in 0..<300 {  // up to 30 s: a busy CI machine writes the log late
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").last(where: { $0.contains("one-time code") && $0.contains(destination + ":") }),
               let code = line.split(separator: " ").last {
                return String(code)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTFail("no code for \(destination) in \(log)")
        throw CancellationError()
    }

    /// A new account's address.
    static func email() -> String { "kit-\(UUID().uuidString.prefix(12).lowercased())@example.com" }
}
