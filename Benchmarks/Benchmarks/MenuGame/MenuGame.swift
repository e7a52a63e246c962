import Benchmark
import BenchmarkSupport
import Foundation
import MenuGame

/// Group results for 100 players × 500 menus (target: median ≤ 2 ms), with the original
/// recommender beside the default one and a solo game as the small case.
let benchmarks: @Sendable () -> Void = {
    var random = SeededGenerator(seed: 42)
    let menus = try! Synthetic.menus(500, using: &random)
    let players = (0..<100).map { _ in Synthetic.player(using: &random) }
    // Group dislikes can empty a large part of the catalog; measure the full-size case too.
    let openMinded = players.map { PlayerChoice(answer: $0.answer, disliked: []) }
    let v0 = Recommender(version: .v0, menus: menus)
    let v1 = Recommender(version: .v1, menus: menus)
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .throughput], maxDuration: .seconds(5), maxIterations: 5_000)

    Benchmark("group result v1, 100 players x 500 menus", configuration: configuration) { benchmark in
        var generator = SystemRandomNumberGenerator()
        for _ in benchmark.scaledIterations { blackHole(v1.rank(openMinded, limit: 5, using: &generator)) }
    }
    Benchmark("group result v1, 100 players x 500 menus, with dislikes", configuration: configuration) { benchmark in
        var generator = SystemRandomNumberGenerator()
        for _ in benchmark.scaledIterations { blackHole(v1.rank(players, limit: 5, using: &generator)) }
    }
    Benchmark("group result v0, 100 players x 500 menus", configuration: configuration) { benchmark in
        var generator = SystemRandomNumberGenerator()
        for _ in benchmark.scaledIterations { blackHole(v0.rank(openMinded, limit: 5, using: &generator)) }
    }
    Benchmark("solo result v1, 500 menus", configuration: configuration) { benchmark in
        var generator = SystemRandomNumberGenerator()
        for _ in benchmark.scaledIterations { blackHole(v1.rank([openMinded[0]], limit: 5, using: &generator)) }
    }
}
