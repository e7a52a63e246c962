package import Fluent

/// Every migration of the app. Fluent records a migration under its `name`, by default the type's
/// name with its module's; the name stays `WhatWeEatServer.<Type>`, as when all of the server was
/// one module, so moving a migration between modules never runs it twice on an existing database.
package protocol NamedMigration: AsyncMigration {}

extension NamedMigration {
    package var name: String { "WhatWeEatServer.\(Self.self)" }
}
