// swift-tools-version:6.1
// Benchmarks for WhatWeEat, kept out of the main package so its build and CI never pay for them.
//   swift package --allow-writing-to-directory .benchmarks benchmark     (speed, ordo-one/benchmark)
//   swift run -c release recommender-quality                              (v1 against v0 on synthetic groups)
import PackageDescription

let package = Package(
    name: "whatweeat-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "whatweeat", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "MenuGame", package: "whatweeat")],
            path: "Sources/BenchmarkSupport"
        ),
        .executableTarget(
            // Not "MenuGame": the main package's module of that name is what it measures.
            name: "MenuGameBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "MenuGame", package: "whatweeat"),
            ],
            path: "Benchmarks/MenuGame",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "recommender-quality",
            dependencies: ["BenchmarkSupport", .product(name: "MenuGame", package: "whatweeat")],
            path: "Sources/RecommenderQuality"
        ),
    ]
)
