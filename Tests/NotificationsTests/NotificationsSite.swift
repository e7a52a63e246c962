import Platform
import WhatWeEatTesting
import XCTVapor

/// What these tests run: the site's foundations (accounts, notifications) and no feature, so they build and boot only what they test.
enum NotificationsSite {
    static let features: [any Feature.Type] = []
}

/// Runs `body` against a fresh site of `NotificationsSite.features` on a fresh database.
func withTestApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withTestApp(features: NotificationsSite.features, adjust: adjust, body)
}

/// Runs `body` against a fresh site of `NotificationsSite.features` listening on a free loopback port.
func withListeningApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application, Int) async throws -> Void) async throws {
    try await withListeningApp(features: NotificationsSite.features, adjust: adjust, body)
}
