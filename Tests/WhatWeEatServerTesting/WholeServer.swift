import Platform
import WhatWeEatServer
import WhatWeEatTesting
import XCTVapor

// The whole server, every feature booted: for tests of how features meet (withdrawal, the home
// page, the seams), the server's commands and process, and the targets not yet on a site of their own.

/// Runs `body` against the whole server, configured as `whatweeat serve` configures it (seams
/// between features included), on a fresh database (migrated and seeded, nothing else).
package func withTestApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withTestApp(features: Features.all, adjust: adjust, configure: WhatWeEatServer.configure, body)
}

/// Runs `body` against the whole server listening on a free loopback port.
package func withListeningApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application, Int) async throws -> Void) async throws {
    try await withListeningApp(features: Features.all, adjust: adjust, configure: WhatWeEatServer.configure, body)
}
