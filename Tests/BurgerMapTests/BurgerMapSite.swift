import BurgerMap
import LookForRealBurgerApp
import BurgerMapTesting
import Platform
import WhatWeEatTesting
import XCTVapor

/// What these tests run: the map and the LookForRealBurger app's routes on the site's foundations (accounts, notifications), and no
/// other feature, so they build and boot only what they test.
enum BurgerMapSite {
    static let features: [any Feature.Type] = [BurgerMapFeature.self, LookForRealBurgerAppLayer.self]
}

/// Runs `body` against a fresh site of `BurgerMapSite.features` on a fresh database.
func withTestApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withTestApp(features: BurgerMapSite.features, adjust: adjust, body)
}

/// Runs `body` against a fresh site of `BurgerMapSite.features` listening on a free loopback port.
func withListeningApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application, Int) async throws -> Void) async throws {
    try await withListeningApp(features: BurgerMapSite.features, adjust: adjust, body)
}

/// A fresh site of `BurgerMapSite.features` that accepts `LSLPClient.key`.
func withLSLPApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withLSLPApp(features: BurgerMapSite.features, adjust: adjust, body)
}
