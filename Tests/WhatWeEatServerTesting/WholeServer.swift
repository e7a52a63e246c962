// The whole server's tests use the map's and mates' helpers as well (members with places, the
// apps' clients): one import gives them all.
@_exported import BurgerMapTesting
@_exported import MatesTesting
package import Platform
import WhatWeEatServer
package import WhatWeEatTesting
package import XCTVapor

// The whole server, every feature booted: for tests of how features meet (withdrawal, the home
// page, the seams), the server's commands and process, and Platform's tests (not yet on a site of their own).

/// Runs `body` against the whole server, configured as `whatweeat serve` configures it (seams
/// between features included), on a fresh database (migrated and seeded, nothing else).
package func withTestApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withTestApp(features: Features.all, adjust: adjust, configure: WhatWeEatServer.configure, body)
}

/// The whole server accepting `LSLPClient.key`.
package func withLSLPApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withLSLPApp(features: Features.all, configure: WhatWeEatServer.configure, adjust: adjust, body)
}

/// The whole server accepting the fake Firebase project's tokens (and `extraProjects`').
package func withSesacApp(extraProjects: [String] = [], adjust: (inout Settings) -> Void = { _ in },
                          _ body: (Application, FakeFirebase) async throws -> Void) async throws {
    try await withSesacApp(features: Features.all, configure: WhatWeEatServer.configure, extraProjects: extraProjects, adjust: adjust, body)
}

/// Runs `body` against the whole server listening on a free loopback port.
package func withListeningApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application, Int) async throws -> Void) async throws {
    try await withListeningApp(features: Features.all, adjust: adjust, configure: WhatWeEatServer.configure, body)
}
