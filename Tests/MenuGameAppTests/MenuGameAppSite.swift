import MenuGame
import MenuGameApp
import Platform
import WhatWeEatTesting
import XCTVapor

/// What these tests run: the menu game and its app's routes on the site's foundations (accounts, notifications), and no other feature, so they build and boot only what they test.
enum MenuGameAppSite {
    static let features: [any Feature.Type] = [MenuGameFeature.self, MenuGameAppLayer.self]
}

/// Runs `body` against a fresh site of `MenuGameAppSite.features` on a fresh database.
func withTestApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withTestApp(features: MenuGameAppSite.features, adjust: adjust, body)
}

/// Runs `body` against a fresh site of `MenuGameAppSite.features` listening on a free loopback port.
func withListeningApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application, Int) async throws -> Void) async throws {
    try await withListeningApp(features: MenuGameAppSite.features, adjust: adjust, body)
}
