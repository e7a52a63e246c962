// swift-tools-version:6.0
// The generator that makes WhatWeEatKit's code from openapi.yaml (Clients/swift/generate). A
// package of its own so neither the server nor an app that adds WhatWeEatKit builds it.
import PackageDescription

let package = Package(
    name: "WhatWeEatKitTools",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
    ]
)
