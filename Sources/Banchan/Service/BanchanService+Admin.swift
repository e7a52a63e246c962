import Fluent
import Media
import Platform
import Vapor

/// Catalog administration: adding, changing and retiring dishes with the catalog's rules; the
/// store writes them and every process's listings follow.
extension BanchanService {
    /// Adds a dish, or brings a retired one back with these fields (its hash stays with its orders).
    func addDish(_ dish: Dish, stock: Int, by operator: UUID?) async throws -> BanchanStore.DishRow {
        try Self.validate(dish, stock: stock)
        return try await store.addDish(dish, stock: stock, at: environment.now()) { added in
            audit("banchan.dish.add", hash: added.hash, before: nil, after: added, by: `operator`)
        }
    }

    /// Changes a dish on sale (404 for a retired one), its stock when given.
    func changeDish(hash: String, stock: Int?, by operator: UUID?, _ change: (inout Dish) throws -> Void) async throws -> BanchanStore.DishRow {
        let before = try await store.dishRowOnSale(hash: hash)
        return try await store.changeDish(hash: hash, stock: stock, at: environment.now(), audit: { changed in
            audit("banchan.dish.change", hash: hash, before: before, after: changed, by: `operator`)
        }) { dish, stockNow in
            try change(&dish)
            try Self.validate(dish, stock: stock ?? stockNow)
        }
    }

    /// The largest photo an operator may upload for a dish (as a review's).
    static let maxDishPhotoBytes = 5 * 1024 * 1024

    /// Puts the operator's photo on a dish on sale: cleaned like every upload (its metadata
    /// dropped, its size checked; 415 for what is not a JPEG, PNG or WebP), stored, and shown
    /// instead of the drawn picture under the dish's picture addresses. The file it replaces goes
    /// once no dish shows it. Audited (`banchan.dish.photo`).
    func setDishPhoto(hash: String, data: Data, files: any FileStorage, by operator: UUID?) async throws -> BanchanStore.DishRow {
        let image = try Self.cleanDishPhoto(data)
        guard try await store.dishRowOnSale(hash: hash) != nil else { throw AppError.notFound("dish_not_found") }
        let key = try await files.save(image.data, as: image.type)
        let now = environment.now()
        let row: BanchanStore.DishRow, replaced: String?
        do {
            (row, replaced) = try await store.setDishPhoto(hash: hash, key: key, at: now) { row in
                AuditEntry(actorID: `operator`, action: "banchan.dish.photo", subjectType: "banchan_dish", subjectID: hash,
                           before: nil, after: ["photo": "\(image.width)×\(image.height)"], at: now)
            }
        } catch {
            // Not kept (the dish was taken off sale meanwhile, the database refused): nor is the file.
            if try await !store.dishPhotoInUse(key) {
                do { try await files.delete(key: key) } catch { logger.warning("an unkept dish photo was not removed", metadata: ["key": "\(key)"]) }
            }
            throw error
        }
        if let replaced, replaced != key, try await !store.dishPhotoInUse(replaced) {
            do { try await files.delete(key: replaced) } catch { logger.warning("a replaced dish photo was not removed", metadata: ["key": "\(replaced)"]) }
        }
        return row
    }

    /// A dish photo as it will be kept, or why it will not be (400 empty, 413 too large, 415 not a
    /// JPEG, PNG or WebP, 422 too many pixels): the console checks a new dish's photo before adding
    /// the dish, so a refused photo adds nothing.
    static func cleanDishPhoto(_ data: Data) throws -> CleanImage {
        guard !data.isEmpty else { throw AppError.badRequest("empty_upload") }
        guard data.count <= maxDishPhotoBytes else { throw AppError(.payloadTooLarge, "image_too_large", arguments: ["max": "5 MB"]) }
        do throws(ImageProblem) { return try ImageCleaner.clean(data) } catch { throw error.appError(unsupportedMessageKey: "error.unsupported_photo_type") }
    }

    /// Takes a dish off sale; it is not found (404) until it is added again.
    func retireDish(hash: String, by operator: UUID?) async throws {
        let before = try await store.dishRowOnSale(hash: hash)
        try await store.retireDish(hash: hash, at: environment.now()) { _ in
            audit("banchan.dish.retire", hash: hash, before: before, after: nil, by: `operator`)
        }
    }

    /// What the console's form and `PUT /api/v1/admin/shop-settings` send; a field left out keeps
    /// the value in force.
    package struct TermsInput: Content {
        var deliveryFee: Int?
        var freeDeliveryFrom: Int?
        /// `HH:mm`, Korea's time.
        var dawnCutoff: String?
    }

    /// The terms in force with the input's fields written over them (422 `invalid_shop_setting`
    /// for a cut-off that is not a time of day).
    func terms(from input: TermsInput) throws -> ShopTerms {
        var terms = environment.terms.terms
        if input.deliveryFee != nil || input.freeDeliveryFrom != nil {
            terms.delivery = DeliveryFeeRule(fee: input.deliveryFee ?? terms.delivery.fee, freeFrom: input.freeDeliveryFrom ?? terms.delivery.freeFrom)
        }
        if let cutoff = input.dawnCutoff {
            guard let dawn = DawnSchedule.parse(cutoff) else {
                throw AppError.invalid("invalid_shop_setting", ["field": "dawnCutoff"])
            }
            terms.dawn = dawn
        }
        return terms
    }

    /// Saves the operator's terms (422 `invalid_shop_setting` naming the field out of range) with
    /// their audit entry in one transaction, then tells every instance to take them.
    /// Terms equal to those in force save nothing (and leave no entry).
    func changeTerms(_ terms: ShopTerms, by operator: UUID?) async throws {
        if let field = terms.problem { throw AppError.invalid("invalid_shop_setting", ["field": field]) }
        let before = environment.terms.terms
        guard terms != before else { return }
        try await database.writeTransaction { transaction in
            _ = try await BanchanStore(database: transaction, environment: environment).saveTerms(terms, by: `operator`, at: environment.now())
            func fields(_ terms: ShopTerms) -> [String: String] {
                ["deliveryFee": String(terms.delivery.fee), "freeDeliveryFrom": String(terms.delivery.freeFrom), "dawnCutoff": terms.dawn.cutoffText]
            }
            try await AuditLog(database: transaction).record(AuditEntry(actorID: `operator`, action: "banchan.terms.change", subjectType: "banchan_shop",
                                                                        subjectID: BanchanStore.shopTermsKey, before: fields(before), after: fields(terms), at: environment.now()))
        }
        // This instance takes them before answering; the others when they hear.
        try await environment.terms.load(from: store)
        await ShopTermsInForce.announceChange(on: events)
    }

    /// The audit log's entry of a catalog change: the fields people act on, before and after.
    private func audit(_ action: String, hash: String, before: BanchanStore.DishRow?, after: BanchanStore.DishRow?, by operator: UUID?) -> AuditEntry {
        func fields(_ row: BanchanStore.DishRow?) -> [String: String]? {
            row.map { ["title": $0.dish.title, "section": $0.dish.section.rawValue, "salePrice": String($0.dish.salePrice),
                       "originalPrice": $0.dish.originalPrice.map(String.init) ?? "", "stock": String($0.stock)] }
        }
        return AuditEntry(actorID: `operator`, action: action, subjectType: "banchan_dish", subjectID: hash, before: fields(before), after: fields(after),
                          at: environment.now())
    }

    package static func validate(_ dish: Dish, stock: Int) throws {
        if let field = dish.problems.first { throw AppError.invalid("invalid_dish_field", ["field": field]) }
        guard (0...1_000_000).contains(stock) else { throw AppError.invalid("invalid_dish_field", ["field": "stock"]) }
    }
}
