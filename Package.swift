// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "whatweeat",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "whatweeat", targets: ["whatweeat"]),
        .library(name: "WhatWeEatServer", targets: ["WhatWeEatServer"]),
        // The Engine.IO 4 / Socket.IO server, free of anything WhatWeEat-specific.
        .library(name: "SocketIO", targets: ["SocketIO"]),
        // The menu game's rules (catalog, scoring, recommender), for the Benchmarks package.
        .library(name: "MenuGame", targets: ["MenuGame"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/vapor/fluent.git", from: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.14.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/JohnSundell/Plot.git", from: "0.14.0"),
        // Already a dependency of Vapor; the payment client and the process tests use it directly.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Already in the graph through Vapor and jwt-kit: the SMTP client (NIO, TLS), the App Store
        // verifier (certificate chains, ES256), and the tests' own certificates.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"6.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // Metrics: swift-metrics' API (Vapor already depends on it), exported by swift-prometheus.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // The architecture, one module per unit; arrows point one way (docs/DECISIONS.md, "Modules"):
        //   Platform  <-  Media  <-  Accounts  <-  Notifications  <-  MenuGame, Banchan, BurgerMap, Mates
        //   Platform  <-  Payments (Banchan, Mates and their apps' layers), Messaging (Accounts' mail,
        //                 Notifications' pushes, Mates' codes)
        //   each feature  <-  the layer for its shipped app (MenuGameApp, BanchanApp,
        //                     LookForRealBurgerApp, SesacStudyApp, which also uses SocketIO)
        //   Platform, Media, Payments, Messaging, Accounts, Notifications  <-  Site (the site around
        //                     any list of features: database, bus, queue, middleware, migrations)
        //   all of them  <-  WhatWeEatServer (every feature, settings, commands)  <-  whatweeat
        .target(name: "Platform", dependencies: platformDependencies),
        // Uploaded files (where they are kept: a disk, the database, an S3 bucket), the image
        // cleaner, the upload quotas and the QR encoder.
        .target(name: "Media", dependencies: ["Platform", "CZlib"] + vapor + [
            .product(name: "Fluent", package: "fluent"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // The payment providers (PortOne, the App Store) and the refunds owed at them.
        .target(name: "Payments", dependencies: ["Platform"] + vapor + [
            .product(name: "Fluent", package: "fluent"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // Messages to people outside the app: email over SMTP, SMS, Web Push and FCM.
        .target(name: "Messaging", dependencies: ["Platform"] + vapor + [
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Crypto", package: "swift-crypto"),
            // RS256 for FCM's service-account JWTs.
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        // The system's zlib, for the image cleaner's check of PNG colour profiles.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "SocketIO", dependencies: vapor),
        feature("Accounts", ["Platform", "Media", "Messaging"]),
        feature("Notifications", ["Platform", "Media", "Messaging", "Accounts"]),
        feature("MenuGame", ["Platform", "Media", "Accounts", "Notifications"]),
        feature("Banchan", ["Platform", "Media", "Payments", "Accounts", "Notifications"]),
        feature("BurgerMap", ["Platform", "Media", "Accounts", "Notifications"]),
        feature("Mates", ["Platform", "Payments", "Messaging", "Accounts", "Notifications"]),
        // The shipped apps' own routes, each on its feature.
        feature("MenuGameApp", ["Platform", "Accounts", "MenuGame"]),
        feature("BanchanApp", ["Platform", "Payments", "Accounts", "Banchan"]),
        feature("LookForRealBurgerApp", ["Platform", "Media", "Payments", "Accounts", "Notifications", "BurgerMap"]),
        feature("SesacStudyApp", ["Platform", "Payments", "Accounts", "Notifications", "Mates", "SocketIO"], extra: [
            // RS256 for Firebase ID tokens.
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "X509", package: "swift-certificates"),
        ]),
        // The site around the features it is given: a feature's tests run it with that feature alone.
        feature("Site", siteUnits, extra: databaseDrivers + [.product(name: "Metrics", package: "swift-metrics")]),
        feature("WhatWeEatServer", units + ["SocketIO", "Site"], extra: databaseDrivers),
        .executableTarget(
            name: "whatweeat",
            dependencies: ["WhatWeEatServer", "Site", "Platform",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]
        ),
        .testTarget(
            name: "SocketIOTests",
            dependencies: ["SocketIO", .product(name: "XCTVapor", package: "vapor")]
        ),
        // What every module's tests share: a site of the features a test gives on a fresh
        // database, requests, cookies, clocks, fake providers (Tests/WhatWeEatTesting). It builds
        // on the site's units only, so a feature's tests compile no other feature.
        .target(name: "WhatWeEatTesting", dependencies: ["Site", "SocketIO"] + siteUnits.map { .target(name: $0) } + testProducts,
                path: "Tests/WhatWeEatTesting"),
        // The map's and mates' test helpers (members with places and reviews, the shipped apps'
        // clients), each on its feature and that feature's app layer only.
        .target(name: "BurgerMapTesting", dependencies: ["WhatWeEatTesting", "BurgerMap", "LookForRealBurgerApp"] + testProducts,
                path: "Tests/BurgerMapTesting"),
        .target(name: "MatesTesting", dependencies: ["WhatWeEatTesting", "Mates", "SesacStudyApp", "SocketIO"] + testProducts,
                path: "Tests/MatesTesting"),
        // Tests of the whole server: every feature booted, for the tests of how features meet.
        .target(name: "WhatWeEatServerTesting", dependencies: ["WhatWeEatTesting", "BurgerMapTesting", "MatesTesting", "WhatWeEatServer"]
                    + units.map { .target(name: $0) } + testProducts,
                path: "Tests/WhatWeEatServerTesting"),
    ] + testedModules.map { module in
        // One test target per module (`swift test --filter <Module>Tests`).
        .testTarget(name: "\(module)Tests", dependencies: [.target(name: module)] + testLibraries(module) + testProducts)
    }
)

/// The test libraries a module's tests use: a module whose tests run on a site of their own
/// (`testSites`) needs only `WhatWeEatTesting` and builds no other feature; the rest boot the whole server.
@MainActor func testLibraries(_ module: String) -> [Target.Dependency] {
    if let own = testSites[module] { return ["Site", "WhatWeEatTesting"] + own.map { .target(name: $0) } }
    return ["Site", "WhatWeEatTesting", "WhatWeEatServerTesting"]
}

/// The modules whose tests run on a site of their own, with what they build beyond the site's
/// foundations (Site, Platform, Media, Payments, Messaging, Accounts, Notifications): their
/// feature, its shipped app's layer, and the feature's test helpers.
var testSites: [String: [String]] {
    [
        "Platform": [], "Accounts": [], "Notifications": [], "Media": [], "Messaging": [], "Payments": [],
        "MenuGame": ["MenuGameApp"], "MenuGameApp": ["MenuGame"],
        "Banchan": ["BanchanApp"],
        "BurgerMap": ["LookForRealBurgerApp", "BurgerMapTesting"], "LookForRealBurgerApp": ["BurgerMap", "BurgerMapTesting"],
        "Mates": ["SesacStudyApp", "MatesTesting"], "SesacStudyApp": ["Mates", "MatesTesting"],
    ]
}

/// The modules with a test target of their own (`Tests/<Module>Tests`).
var testedModules: [String] {
    ["Platform", "Media", "Payments", "Messaging", "Accounts", "Notifications", "MenuGame", "MenuGameApp", "Banchan",
     "BurgerMap", "LookForRealBurgerApp", "Mates", "SesacStudyApp", "WhatWeEatServer"]
}

/// What the tests use beside the modules: XCTVapor, a PostgreSQL driver (the test databases'
/// template is copied on the cluster's maintenance database), HTTP clients, NIO, certificates.
var testProducts: [Target.Dependency] {
    [
        .product(name: "XCTVapor", package: "vapor"),
        .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "X509", package: "swift-certificates"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
        .product(name: "SwiftASN1", package: "swift-asn1"),
    ]
}

/// Vapor, Fluent and Plot: what every unit builds on.
var vapor: [Target.Dependency] {
    [
        .product(name: "Vapor", package: "vapor"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
    ]
}

var platformDependencies: [Target.Dependency] {
    vapor + [
        .product(name: "Fluent", package: "fluent"),
        .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
        .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
        .product(name: "JWTKit", package: "jwt-kit"),
        .product(name: "Plot", package: "Plot"),
        // `/metrics`.
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
    ]
}

/// What the site is built on (`Site`): every feature's foundations.
var siteUnits: [String] { ["Platform", "Media", "Payments", "Messaging", "Accounts", "Notifications"] }

var databaseDrivers: [Target.Dependency] {
    [
        .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
        .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
    ]
}

/// The features and app layers, in the order of `Features.all`.
var units: [String] {
    ["Platform", "Media", "Payments", "Messaging", "Accounts", "Notifications", "MenuGame", "MenuGameApp", "Banchan", "BanchanApp",
     "BurgerMap", "LookForRealBurgerApp", "Mates", "SesacStudyApp"]
}

/// A feature or app layer: its own folder under Sources/, the units it builds on, Vapor, Fluent and Plot.
@MainActor func feature(_ name: String, _ units: [String], extra: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: units.map { .target(name: $0) } + vapor + [
        .product(name: "Fluent", package: "fluent"),
        .product(name: "Plot", package: "Plot"),
    ] + extra)
}

/// The house's compiler settings, on every module and test target (as Vapor 5 has them): an
/// existential says `any`, a file imports every module whose members it uses, and an import is
/// internal unless the file says `package import` or `public import` (a module's face shows only
/// what it chose to).
let houseSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + houseSettings
}
