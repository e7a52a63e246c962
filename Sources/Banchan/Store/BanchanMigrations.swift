import Accounts
import Fluent
import Platform
import SQLKit
import Vapor

struct CreateBanchan: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(DishRecord.schema)
            .id()
            .field("hash", .string, .required)
            .field("section", .string, .required)
            .field("position", .int, .required)
            .field("title", .string, .required)
            .field("description", .string, .required)
            .field("sale_price", .int, .required)
            .field("original_price", .int)
            .field("badges", .array(of: .string), .required)
            .field("delivery_types", .array(of: .string), .required)
            .field("point_rate", .int, .required)
            .field("delivery_info", .string, .required)
            .field("min_quantity", .int, .required)
            .field("max_quantity", .int, .required)
            .field("emoji", .string, .required)
            .field("color", .string, .required)
            .field("weight", .string, .required)
            .field("ingredients", .string, .required)
            .field("storage", .string, .required)
            .field("detail_sections", .array(of: .string), .required)
            .field("thumb_count", .int, .required)
            .field("stock", .int, .required)
            .field("edited_by_admin", .bool, .required)
            .field("retired_at", .datetime)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .unique(on: "hash")
            .create()
        try await database.schema(CartItem.schema)
            .id()
            .field("owner_key", .string, .required)
            .field("dish_id", .uuid, .required, .references(DishRecord.schema, "id", onDelete: .cascade))
            .field("quantity", .int, .required)
            .field("created_at", .datetime)
            .unique(on: "owner_key", "dish_id")
            .create()
        try await database.schema(BanchanOrder.schema)
            .id()
            .field("owner_key", .string, .required)
            .field("user_id", .uuid, .references(User.schema, "id", onDelete: .setNull))
            .field("status", .string, .required)
            .field("items_total", .int, .required)
            .field("delivery_fee", .int, .required)
            .field("total", .int, .required)
            .field("points", .int, .required)
            .field("merchant_uid", .string, .required)
            .field("payment_provider", .string)
            .field("payment_id", .string)
            .field("paid_at", .datetime)
            .field("cancelled_at", .datetime)
            .field("cancel_reason", .string)
            .field("idempotency_key", .string)
            .field("request_digest", .string)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .unique(on: "merchant_uid")
            .unique(on: "owner_key", "idempotency_key")
            .create()
        try await database.schema(BanchanOrderItem.schema)
            .id()
            .field("order_id", .uuid, .required, .references(BanchanOrder.schema, "id", onDelete: .cascade))
            .field("line", .int, .required)
            .field("dish_id", .uuid, .required)
            .field("hash", .string, .required)
            .field("title", .string, .required)
            .field("unit_price", .int, .required)
            .field("quantity", .int, .required)
            .field("points_per_unit", .int, .required)
            .create()
        let sql = database.sql
        try await sql.create(index: "banchan_dishes_section_position").on(DishRecord.schema)
            .column("section").column("position").column("id").run()
        try await sql.create(index: "banchan_orders_owner_created").on(BanchanOrder.schema)
            .column("owner_key").column("created_at").column("id").run()
        try await sql.create(index: "banchan_order_items_order").on(BanchanOrderItem.schema).column("order_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(BanchanOrderItem.schema).delete()
        try await database.schema(BanchanOrder.schema).delete()
        try await database.schema(CartItem.schema).delete()
        try await database.schema(DishRecord.schema).delete()
    }
}

/// An order's progress: a number people read aloud, the time of each step, and the days' counters.
/// Orders placed before get their numbers here, day by day in the order they were placed.
struct AddOrderProgress: NamedMigration {
    typealias Column = BanchanStore.OrderColumn

    func prepare(on database: any Database) async throws {
        // One column a statement: SQLite adds one at a time.
        let added: [(Column, DatabaseSchema.DataType)] = [(.number, .string), (.preparingAt, .datetime), (.shippedAt, .datetime), (.deliveredAt, .datetime),
                                                         (.cancelRequestedAt, .datetime)]
        for column in added {
            try await database.schema(BanchanOrder.schema).fields([column], optional: true).update()
        }
        try await database.schema(BanchanStore.orderDays)
            .field(BanchanStore.OrderDayColumn.day.fieldKey, .string, .identifier(auto: false))
            .fields([(BanchanStore.OrderDayColumn.last, .int)])
            .create()
        try await Self.numberEarlierOrders(on: database)
        try await database.sql.create(index: "banchan_orders_number").on(BanchanOrder.schema).column(Column.number.rawValue).unique().run()
    }

    /// Gives every order without a number one, day by day in the order they were placed, after the
    /// day's numbers already given, and leaves each day's counter at its last.
    static func numberEarlierOrders(on database: any Database) async throws {
        let sql = database.sql
        let placed = try await sql.select().column(SQLIdentifier(Column.id)).column(SQLIdentifier(Column.createdAt)).from(BanchanOrder.schema)
            .where(SQLIdentifier(Column.number), .is, SQLLiteral.null).orderBy(Column.createdAt).orderBy(Column.id).all()
        var lastOfDay: [String: Int] = [:]
        for row in placed {
            let day = BanchanStore.orderDay(try row.decode(column: Column.createdAt, as: Date?.self) ?? WallClock.now())
            let store = BanchanStore.OrderDayColumn.self
            if lastOfDay[day] == nil {
                lastOfDay[day] = try await sql.select().column(SQLIdentifier(store.last)).from(BanchanStore.orderDays)
                    .where(SQLIdentifier(store.day), .equal, SQLBind(day)).first(decodingColumn: store.last, as: Int.self) ?? 0
            }
            let last = (lastOfDay[day] ?? 0) + 1
            lastOfDay[day] = last
            try await sql.update(BanchanOrder.schema).set(SQLIdentifier(Column.number), to: SQLBind(day + "-" + String(format: "%04d", last)))
                .where(SQLIdentifier(Column.id), .equal, SQLBind(try row.decode(column: Column.id, as: UUID.self))).run()
        }
        for (day, last) in lastOfDay {
            try await sql.delete(from: BanchanStore.orderDays).where(SQLIdentifier(BanchanStore.OrderDayColumn.day), .equal, SQLBind(day)).run()
            try await sql.insert(into: BanchanStore.orderDays).columns(BanchanStore.OrderDayColumn.day, .last).values(SQLBind(day), SQLBind(last)).run()
        }
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "banchan_orders_number").run()
        try await database.schema(BanchanStore.orderDays).delete()
        // Written out: Fluent's SQLite driver leaves a dropped field where it is.
        for column in [Column.number, .preparingAt, .shippedAt, .deliveredAt, .cancelRequestedAt] {
            try await database.sql.raw("ALTER TABLE \(ident: BanchanOrder.schema) DROP COLUMN \(ident: column.rawValue)").run()
        }
    }
}

/// How a shipped order travels: the courier and its 송장번호 (`Shipment`), set when the console ships it.
struct AddOrderShipment: NamedMigration {
    typealias Column = BanchanStore.OrderColumn
    static let columns: [Column] = [.courier, .trackingNumber]

    func prepare(on database: any Database) async throws {
        // One column a statement: SQLite adds one at a time.
        for column in Self.columns {
            try await database.schema(BanchanOrder.schema).fields([(column, .string)], optional: true).update()
        }
    }

    func revert(on database: any Database) async throws {
        // Written out: Fluent's SQLite driver leaves a dropped field where it is.
        for column in Self.columns {
            try await database.sql.raw("ALTER TABLE \(ident: BanchanOrder.schema) DROP COLUMN \(ident: column.rawValue)").run()
        }
    }
}

/// The operator's photo of a dish (`photo_key`), shown instead of the drawn picture.
struct AddDishPhoto: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(DishRecord.schema).field(.string(BanchanStore.DishColumn.photoKey), .string).update()
    }

    func revert(on database: any Database) async throws {
        // Written out: Fluent's SQLite driver leaves a dropped field where it is.
        try await database.sql.raw("ALTER TABLE \(ident: DishRecord.schema) DROP COLUMN \(ident: BanchanStore.DishColumn.photoKey)").run()
    }
}
