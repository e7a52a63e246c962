package import Platform
import Plot
package import Vapor

/// `/licenses`: the open-source software the server is built from, with each licence.
package struct LicensesPage: RouteCollection {
    package struct Component {
        package let name: String
        package let url: String
        let license: String
        package let holder: String
    }

    /// Direct dependencies and the libraries they bring that ship in the binary.
    package static let components: [Component] = [
        Component(name: "Vapor", url: "https://github.com/vapor/vapor", license: "MIT", holder: "Qutheory, LLC"),
        Component(name: "Fluent, FluentKit", url: "https://github.com/vapor/fluent", license: "MIT", holder: "Qutheory, LLC"),
        Component(name: "Fluent SQLite driver, SQLiteNIO, SQLiteKit", url: "https://github.com/vapor/fluent-sqlite-driver", license: "MIT", holder: "Qutheory, LLC"),
        Component(name: "SQLite", url: "https://sqlite.org", license: "Public domain", holder: "D. Richard Hipp"),
        Component(name: "Fluent PostgreSQL driver, PostgresNIO, PostgresKit", url: "https://github.com/vapor/fluent-postgres-driver", license: "MIT", holder: "Qutheory, LLC"),
        Component(name: "SQLKit", url: "https://github.com/vapor/sql-kit", license: "MIT", holder: "Qutheory, LLC"),
        Component(name: "JWTKit", url: "https://github.com/vapor/jwt-kit", license: "MIT", holder: "Qutheory, LLC"),
        Component(name: "WebSocketKit, RoutingKit, ConsoleKit, MultipartKit, AsyncKit", url: "https://github.com/vapor", license: "MIT", holder: "Qutheory, LLC"),
        Component(name: "Plot", url: "https://github.com/JohnSundell/Plot", license: "MIT", holder: "John Sundell"),
        Component(name: "SwiftNIO, NIO SSL, NIO HTTP/2, NIO Extras", url: "https://github.com/apple/swift-nio", license: "Apache-2.0", holder: "Apple Inc. and the SwiftNIO project authors"),
        Component(name: "Swift Crypto, Swift Certificates, Swift ASN.1", url: "https://github.com/apple/swift-crypto", license: "Apache-2.0", holder: "Apple Inc. and the Swift Crypto project authors"),
        Component(name: "BoringSSL (in Swift Crypto)", url: "https://boringssl.googlesource.com/boringssl", license: "ISC / OpenSSL", holder: "Google Inc. and the OpenSSL project"),
        Component(name: "Swift Log, Swift Metrics, Swift Atomics, Swift Collections, Swift Algorithms, Swift Numerics, Swift System", url: "https://github.com/apple", license: "Apache-2.0", holder: "Apple Inc. and the project authors"),
        Component(name: "AsyncHTTPClient", url: "https://github.com/swift-server/async-http-client", license: "Apache-2.0", holder: "Apple Inc. and the AsyncHTTPClient project authors"),
        Component(name: "Swift Service Lifecycle", url: "https://github.com/swift-server/swift-service-lifecycle", license: "Apache-2.0", holder: "Apple Inc. and the project authors"),
        Component(name: "Unicode confusables.txt 13.0.0 (UTS #39 data: which nicknames look alike)", url: "https://www.unicode.org/Public/security/", license: "Unicode License", holder: "Unicode, Inc."),
        Component(name: "Noto Sans CJK, Noto Color Emoji (fonts the pages prefer when installed)", url: "https://github.com/notofonts", license: "SIL Open Font License 1.1", holder: "Google LLC"),
    ]

    package func boot(routes: any RoutesBuilder) throws {
        routes.get("licenses", use: licenses)
    }

    package func licenses(req: Request) async throws -> Response {
        // The same until the next build: made once per language and kind of viewer.
        Layout.keptPage(req, version: 0) {
            Layout.PageParts(title: req.t("licenses.title"), main: .section(
                .class("card"),
                .h1(.text(req.t("licenses.title"))),
                .p(.class("muted"), .text(req.t("licenses.lead", ["version": AppVersion.current]))),
                .ul(
                    .class("license-list"),
                    .forEach(Self.components) { component in
                        .li(
                            .a(.href(component.url), .text(component.name)),
                            .span(.class("license-name"), .text(component.license)),
                            .span(.class("muted"), .text("© " + component.holder))
                        )
                    }
                )
            ))
        }
    }

    package init() {}
}
