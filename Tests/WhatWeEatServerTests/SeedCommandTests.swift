import Accounts
import BurgerMap
import ConsoleKit
import Fluent
import Mates
import Platform
import SQLKit
import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// `whatweeat seed --synthetic`: the command walks the feature list, and each feature's generator
/// runs when its options are named (the burger map's also when none is).
final class SeedCommandTests: XCTestCase {
    func seed(_ app: Application, _ arguments: [String]) async throws {
        var context = CommandContext(console: Terminal(), input: CommandInput(arguments: ["whatweeat"] + arguments))
        context.application = app
        try await SeedCommand().run(using: &context)
    }

    func testEachFeaturesGeneratorRunsForItsOwnOptions() async throws {
        try await withTestApp { app in
            let placesBefore = try await BurgerPlace.query(on: app.db).count()
            let reviewsBefore = try await BurgerReview.query(on: app.db).count()

            try await seed(app, ["--synthetic", "--mates", "12", "--mate-pairs", "2", "--seed", "3"])
            let mates = try await app.db.sql.count(SQLIdentifier(MatesProfile.schema))
            XCTAssertEqual(mates, 16, "12 searching and 2 pairs")
            let placesAfterMates = try await BurgerPlace.query(on: app.db).count()
            XCTAssertEqual(placesAfterMates, placesBefore, "mates' options alone: no burger places")
            let firstMate = try await User.query(on: app.db).filter(\.$email == MatesSynthetic.email(searching: 0, seed: 3)).first()
            XCTAssertNotNil(firstMate)

            try await seed(app, ["--synthetic", "--places", "7", "--reviews", "20", "--users", "5"])
            let places = try await BurgerPlace.query(on: app.db).count()
            XCTAssertEqual(places, placesBefore + 7)
            let reviews = try await BurgerReview.query(on: app.db).count()
            XCTAssertEqual(reviews, reviewsBefore + 20)
            let matesAfterMap = try await app.db.sql.count(SQLIdentifier(MatesProfile.schema))
            XCTAssertEqual(matesAfterMap, 16, "the burger map's options alone: no more mates")
        }
    }

    /// `seed --demo`: the account README's "Run it" names signs in, a second run leaves it alone,
    /// and a production server refuses to make it.
    func testTheDemoAccountSignsInAndIsNeverMadeInProduction() async throws {
        try await withTestApp { app in
            try await seed(app, ["--demo"])
            try await seed(app, ["--demo"])
            let login = try await app.send(.POST, "/api/v1/auth/login", json: ["email": SeedCommand.demoEmail, "password": SeedCommand.demoPassword])
            XCTAssertEqual(login.status, .ok, login.text)
            let count = try await User.query(on: app.db).filter(\.$email == SeedCommand.demoEmail).count()
            XCTAssertEqual(count, 1)
        }
        try await withTestApp(adjust: { $0.appEnvironment = .production }) { app in
            do {
                try await seed(app, ["--demo"])
                XCTFail("a production server made the demo account")
            } catch let failure as CommandFailure {
                XCTAssertTrue(failure.message.contains("production"), failure.message)
            }
            let none = try await User.query(on: app.db).filter(\.$email == SeedCommand.demoEmail).count()
            XCTAssertEqual(none, 0)
        }
    }

    func testBadOptionsAreRefusedBeforeAnythingIsWritten() async throws {
        try await withTestApp { app in
            let usersBefore = try await User.query(on: app.db).count()
            for arguments in [["--synthetic", "--planets", "3"], ["--places", "3"], ["--synthetic", "--places"],
                              ["--synthetic", "--places", "0"], ["--synthetic", "--mates", "many"], ["extra"]] {
                do {
                    try await seed(app, arguments)
                    XCTFail("\(arguments) was accepted")
                } catch let failure as CommandFailure {
                    XCTAssertFalse(failure.message.isEmpty, "\(arguments)")
                }
            }
            let usersAfter = try await User.query(on: app.db).count()
            XCTAssertEqual(usersAfter, usersBefore)
        }
    }
}
