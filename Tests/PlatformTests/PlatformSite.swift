import Platform
import WhatWeEatTesting
import XCTVapor

/// What these tests run: the site's foundations (accounts, notifications) and no feature. Platform's
/// behaviour as the whole server shows it (budgets, errors, pages, sockets across features) is
/// tested in WhatWeEatServerTests.
enum PlatformSite {
    static let features: [any Feature.Type] = []
}

/// Runs `body` against a fresh site of `PlatformSite.features` on a fresh database.
func withTestApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withTestApp(features: PlatformSite.features, adjust: adjust, body)
}

/// Runs `body` against a fresh site of `PlatformSite.features` listening on a free loopback port.
func withListeningApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application, Int) async throws -> Void) async throws {
    try await withListeningApp(features: PlatformSite.features, adjust: adjust, body)
}
