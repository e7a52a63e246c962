import Banchan
import BanchanApp
import Platform
import WhatWeEatTesting
import XCTVapor

/// What the shop's tests run: the shop and its app's routes on the site's foundations (accounts,
/// notifications), and no other feature, so these tests build and boot only what they test.
enum BanchanSite {
    static let features: [any Feature.Type] = [BanchanFeature.self, BanchanAppLayer.self]
}

/// Runs `body` against a fresh shop site on a fresh database.
func withTestApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withTestApp(features: BanchanSite.features, adjust: adjust, body)
}

/// Runs `body` against a fresh shop site listening on a free loopback port.
func withListeningApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application, Int) async throws -> Void) async throws {
    try await withListeningApp(features: BanchanSite.features, adjust: adjust, body)
}
