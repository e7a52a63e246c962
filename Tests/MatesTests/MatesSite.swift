import Mates
import MatesTesting
import Platform
import SesacStudyApp
import WhatWeEatTesting
import XCTVapor

/// What these tests run: mates and the 새싹 스터디 apps' routes on the site's foundations (accounts, notifications), and no
/// other feature, so they build and boot only what they test.
enum MatesSite {
    static let features: [any Feature.Type] = [MatesFeature.self, SesacStudyAppLayer.self]
}

/// Runs `body` against a fresh site of `MatesSite.features` on a fresh database.
func withTestApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withTestApp(features: MatesSite.features, adjust: adjust, body)
}

/// Runs `body` against a fresh site of `MatesSite.features` listening on a free loopback port.
func withListeningApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application, Int) async throws -> Void) async throws {
    try await withListeningApp(features: MatesSite.features, adjust: adjust, body)
}

/// A fresh site of `MatesSite.features` that accepts the fake Firebase project's tokens (and `extraProjects`').
func withSesacApp(extraProjects: [String] = [], adjust: (inout Settings) -> Void = { _ in },
                  _ body: (Application, FakeFirebase) async throws -> Void) async throws {
    try await withSesacApp(features: MatesSite.features, extraProjects: extraProjects, adjust: adjust, body)
}
