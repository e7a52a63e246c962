// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "whatweeat",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "whatweeat", targets: ["whatweeat"]),
        .library(name: "WhatWeEatServer", targets: ["WhatWeEatServer"]),
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
    ],
    targets: [
        .target(
            name: "WhatWeEatServer",
            dependencies: [
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Plot", package: "Plot"),
                // The PortOne payment client.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .executableTarget(
            name: "whatweeat",
            dependencies: ["WhatWeEatServer"]
        ),
        .testTarget(
            name: "DomainTests",
            dependencies: ["WhatWeEatServer"]
        ),
        .testTarget(
            name: "HTTPTests",
            dependencies: [
                "WhatWeEatServer",
                .product(name: "XCTVapor", package: "vapor"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ]
)
