// `swift run whatweeat-example [server URL]`: a new account sees the devices it is signed in on,
// plays the menu game alone, finds the burger places nearest Seoul City Hall with their best
// review, and puts a side dish in its cart.
import Foundation
import WhatWeEatKit
import WhatWeEatKitAsyncHTTPClient

let server = URL(string: CommandLine.arguments.dropFirst().first ?? "http://127.0.0.1:8080")!
let app = WhatWeEat(serverURL: server, language: "ko", asyncHTTPClient: .init())

do {
    // An account of our own (a new address each run).
    let stamp = UUID().uuidString.prefix(8).lowercased()
    let me = try await app.signUp(email: "example-\(stamp)@example.com", password: "example-password-1", nickname: "예제\(stamp.prefix(4))")
    print("Signed up as \(me.nickname) (\(me.email))")
    // The devices this account is signed in on (GET /api/v1/me/sessions): this one, for now.
    let devices = try await app.api.listSessions().ok.body.json.items
    print("Signed in on \(devices.count) device(s): \(devices.map { ($0.device ?? "?") + ($0.current ? " (this one)" : "") }.joined(separator: ", "))")

    // The menu game, alone: something warm and soupy, nothing greasy.
    let game = try await app.api.soloGame(body: .json(.init(
        value1: .init(gameAnswer: .init(greasy: false, soup: true)), value2: .init()))).ok.body.json
    print("\nWhat to eat:")
    for menu in game.menus.prefix(3) {
        print("  \(menu.rank). \(menu.emoji) \(menu.displayName) — \(menu.keywords.joined(separator: ", "))")
    }

    // The nearest burger places, and the best review of the nearest.
    let near = try await app.api.burgerPlaces(query: .init(near: "37.5665,126.9780", limit: 3)).ok.body.json
    print("\nBurgers near City Hall:")
    for place in near.items {
        print("  \(place.name), \(Int(place.distanceMeters ?? 0)) m, \(place.reviewCount) reviews")
    }
    if let nearest = near.items.first {
        var best: Components.Schemas.Review?
        // Every review of the place, a page at a time, as one sequence.
        for try await review in app.pages({ cursor in
            let page = try await app.api.burgerPlaceReviews(path: .init(place: nearest.id), query: .init(cursor: cursor, limit: 20)).ok.body.json
            return (page.value2.items ?? [], page.value1.nextCursor)
        }) where review.rating > (best?.rating ?? 0) {
            best = review
        }
        if let best { print("  Best at \(nearest.name): ★\(best.rating) \"\(best.title)\" by \(best.author.nickname)") }
    }

    // A side dish in the cart.
    let dishes = try await app.api.banchanSectionDishes(path: .init(section: .main), query: .init(limit: 5)).ok.body.json
    if let dish = dishes.items.first(where: { !$0.soldOut }) {
        let cart = try await app.api.setCartItem(path: .init(hash: dish.hash), body: .json(.init(quantity: 1))).ok.body.json
        print("\nIn the cart: \(cart.items.map { "\($0.title) × \($0.quantity)" }.joined(separator: ", ")) — \(cart.total) won")
    }
} catch {
    // WhatWeEatError carries the server's code and its message in the language asked for.
    print("Failed: \(WhatWeEatError.from(error).map(String.init(describing:)) ?? String(describing: error))")
    exit(1)
}
