// swift-tools-version:6.0
// WhatWeEatKit: a typed Swift client of WhatWeEat's API, generated from ../../openapi.yaml by
// Apple's swift-openapi-generator (committed in Sources/WhatWeEatAPI/Generated; `./generate`
// makes it again), with a thin layer for what apps need around it (docs/SWIFT_CLIENT.md).
// A package of its own, so the server's build never builds it and an app adds only this.
import PackageDescription

let package = Package(
    name: "WhatWeEatKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "WhatWeEatKit", targets: ["WhatWeEatKit"]),
        // The same client over AsyncHTTPClient, for Linux servers and command-line tools.
        .library(name: "WhatWeEatKitAsyncHTTPClient", targets: ["WhatWeEatKitAsyncHTTPClient"]),
        .executable(name: "whatweeat-example", targets: ["WhatWeEatExample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        // Live rooms on Linux (FoundationNetworking's WebSockets need a libcurl built with them).
        .package(url: "https://github.com/vapor/websocket-kit", from: "2.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // The generated code alone, in a module of its own: editing the layer never compiles it again.
        .target(name: "WhatWeEatAPI", dependencies: [
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        ], exclude: ["openapi-generator-config.yaml"]),
        .target(name: "WhatWeEatKit", dependencies: [
            "WhatWeEatAPI",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
        ]),
        .target(name: "WhatWeEatKitAsyncHTTPClient", dependencies: [
            "WhatWeEatKit",
            .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            .product(name: "WebSocketKit", package: "websocket-kit"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        .executableTarget(name: "WhatWeEatExample", dependencies: ["WhatWeEatKit", "WhatWeEatKitAsyncHTTPClient"]),
        .testTarget(name: "WhatWeEatKitTests", dependencies: [
            "WhatWeEatKit", "WhatWeEatKitAsyncHTTPClient",
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
    ]
)
