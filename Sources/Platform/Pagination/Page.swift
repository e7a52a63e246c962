public import Fluent
public import Vapor
public import SQLKit

/// `?cursor=…&limit=…` as every list route reads it.
public struct CursorPageRequest: Sendable {
    public static let defaultLimit = 20
    public static let maxLimit = 100

    /// Where a newest-first list goes on (`paginate(newestFirst:)`).
    public let cursor: PageCursor?
    /// Where a list kept in a fixed order goes on (the shop's in-memory section lists).
    public let orderedCursor: OrderedPageCursor?
    public let limit: Int

    public init(cursor: PageCursor? = nil, orderedCursor: OrderedPageCursor? = nil, limit: Int = CursorPageRequest.defaultLimit) {
        self.cursor = cursor
        self.orderedCursor = orderedCursor
        self.limit = limit
    }

    /// Reads and checks the query; a bad limit or a cursor we did not issue is a 400.
    public init(from request: Request) throws {
        // Read straight from the query string: the general decoder costs more than a list page
        // served from memory. Cursors are base64url and limits digits, so nothing is escaped.
        var query: (cursor: String?, limit: String?) = (nil, nil)
        for pair in (request.url.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            // A broken escape stays as written, so it fails below as the bad value it is.
            let value = parts.count == 2 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : nil
            switch parts.first {
            case "cursor": query.cursor = value ?? ""
            case "limit": query.limit = value ?? ""
            default: continue
            }
        }
        var limit = CursorPageRequest.defaultLimit
        if let raw = query.limit {
            guard let parsed = Int(raw), (1...CursorPageRequest.maxLimit).contains(parsed) else {
                throw AppError.badRequest("invalid_limit", ["max": String(CursorPageRequest.maxLimit)])
            }
            limit = parsed
        }
        var cursor: PageCursor?
        var orderedCursor: OrderedPageCursor?
        if let raw = query.cursor, !raw.isEmpty {
            cursor = PageCursor(encoded: raw)
            orderedCursor = OrderedPageCursor(encoded: raw)
            guard cursor != nil || orderedCursor != nil else { throw AppError.badRequest("invalid_cursor") }
        }
        self.init(cursor: cursor, orderedCursor: orderedCursor, limit: limit)
    }
}

/// An opaque position in a newest-first list: the last row's creation time and id.
/// Rows that arrive later sort before it, so the next page never repeats or skips a row.
public struct PageCursor: Sendable, Equatable {
    public let createdAt: Date
    public let id: UUID

    public init(createdAt: Date, id: UUID) {
        self.createdAt = createdAt
        self.id = id
    }

    package init?(encoded: String) {
        guard let data = Data(base64URLEncoded: encoded), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: "|")
        // Within ±3,000 years of 1970: PostgreSQL binds dates as Int64 microseconds since 2000,
        // which a cursor of 1e300 seconds would overflow (and overflow stops the process).
        guard parts.count == 2, let seconds = Double(parts[0]), seconds.isFinite, abs(seconds) < 1e11,
              let id = UUID(uuidString: String(parts[1])) else {
            return nil
        }
        self.init(createdAt: Date(timeIntervalSince1970: seconds), id: id)
    }

    public var encoded: String {
        Data("\(createdAt.timeIntervalSince1970)|\(id.uuidString)".utf8).base64URLEncodedString()
    }

    /// The time to compare `created_at` with on `database`. PostgresNIO binds a date as whole
    /// microseconds since 2000 by truncation, and a time that went through the cursor's text (and
    /// the 1970 and 2000 epochs) can land a fraction of a microsecond below the stored one: it then
    /// binds one microsecond early and the rows at that microsecond are skipped. Half a
    /// microsecond later truncates to the stored microsecond. SQLite compares the stored double,
    /// which the cursor carries exactly (`MicrosecondTimestampFormat`).
    public func createdAtBound(on database: any SQLDatabase) -> Date {
        Self.createdAtBound(createdAt, dialect: database.dialect.name)
    }

    package static func createdAtBound(_ createdAt: Date, dialect: String) -> Date {
        dialect == "postgresql" ? createdAt.addingTimeInterval(0.000_000_5) : createdAt
    }
}

/// An opaque position in a list kept in a fixed order (a catalog): the last row's position and id.
public struct OrderedPageCursor: Sendable, Equatable {
    public let position: Int
    public let id: UUID

    public init(position: Int, id: UUID) {
        self.position = position
        self.id = id
    }

    package init?(encoded: String) {
        guard let data = Data(base64URLEncoded: encoded), let text = String(data: data, encoding: .utf8), text.hasPrefix("o:") else { return nil }
        let parts = text.dropFirst(2).split(separator: "|")
        guard parts.count == 2, let position = Int(parts[0]), let id = UUID(uuidString: String(parts[1])) else { return nil }
        self.init(position: position, id: id)
    }

    public var encoded: String {
        Data("o:\(position)|\(id.uuidString)".utf8).base64URLEncodedString()
    }
}

/// `{"items": […], "nextCursor": "…" | null}`.
public struct CursorPage<Item: Content>: Content {
    public let items: [Item]
    /// An explicit null on the last page.
    @NullEncoded public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

extension QueryBuilder where Model.IDValue == UUID {
    /// Newest first by `createdAt`, ties broken by id; one extra row tells whether a next page exists.
    public func paginate(
        newestFirst createdAt: KeyPath<Model, TimestampProperty<Model, MicrosecondTimestampFormat>>,
        _ page: CursorPageRequest
    ) async throws -> (items: [Model], nextCursor: String?) {
        if page.orderedCursor != nil && page.cursor == nil { throw AppError.badRequest("invalid_cursor") }
        if let cursor = page.cursor {
            let bound = (database as? any SQLDatabase).map(cursor.createdAtBound(on:)) ?? cursor.createdAt
            group(.or) { or in
                or.filter(createdAt < bound)
                or.group(.and) { and in
                    and.filter(createdAt == bound)
                    and.filter(\._$id < cursor.id)
                }
            }
        }
        let rows = try await sort(createdAt, .descending).sort(\._$id, .descending).limit(page.limit + 1).all()
        let items = Array(rows.prefix(page.limit))
        guard rows.count > page.limit, let last = items.last, let lastCreated = last[keyPath: createdAt].wrappedValue,
              let lastID = last.id
        else {
            return (items, nil)
        }
        return (items, PageCursor(createdAt: lastCreated, id: lastID).encoded)
    }
}

/// Stores timestamps rounded to whole microseconds, the precision both databases hand back.
///
/// SQLite keeps a full-precision double but sqlite-nio rounds to microseconds when reading,
/// so without this a row's stored time never equals the time a cursor carries and keyset
/// pages repeat or skip rows. The rounding matches the reader's (on the reference date), so
/// a value read back and bound again is the stored value bit for bit.
public struct MicrosecondTimestampFormat: TimestampFormat {
    public typealias Value = Date

    public func parse(_ value: Date) -> Date? { value }

    public func serialize(_ date: Date) -> Date? {
        Date(timeIntervalSinceReferenceDate: (date.timeIntervalSinceReferenceDate * 1e6).rounded() / 1e6)
    }

    package init() {}
}

extension Date {
    /// This time as both databases keep it (whole microseconds): a row written with it reads back equal.
    package var wholeMicroseconds: Date { MicrosecondTimestampFormat().serialize(self) ?? self }
}

extension TimestampFormatFactory {
    /// `@Timestamp(key: "created_at", on: .create, format: .microseconds)` — required for any
    /// list that pages with `paginate(newestFirst:)`.
    public static var microseconds: TimestampFormatFactory<MicrosecondTimestampFormat> {
        .init { MicrosecondTimestampFormat() }
    }
}

extension SQLSelectBuilder {
    /// Newest first by `createdAt`, ties broken by `id`, after the page's cursor, one row more than
    /// the page (so `CursorPageRequest.page(of:)` can tell whether a next page exists). The SQLKit twin
    /// of `QueryBuilder.paginate(newestFirst:)`, for lists read into plain structs.
    public func newestFirst(createdAt: SQLColumn, id: SQLColumn, _ page: CursorPageRequest) throws -> Self {
        if page.orderedCursor != nil && page.cursor == nil { throw AppError.badRequest("invalid_cursor") }
        if let cursor = page.cursor {
            let bound = cursor.createdAtBound(on: database)
            self.where(group: { group in
                group.where(createdAt, .lessThan, SQLBind(bound))
                    .orWhere(group: { tie in
                        tie.where(createdAt, .equal, SQLBind(bound)).where(id, .lessThan, SQLBind(cursor.id))
                    })
            })
        }
        return orderBy(SQLOrderBy(expression: createdAt, direction: SQLDirection.descending))
            .orderBy(SQLOrderBy(expression: id, direction: SQLDirection.descending)).limit(page.limit + 1)
    }
}

/// A row of a newest-first list read with `newestFirst(createdAt:id:_:)`.
public protocol NewestFirstRow {
    var id: UUID { get }
    var createdAt: Date { get }
}

extension CursorPageRequest {
    /// The page's rows and the cursor after the last one (nil on the last page), from rows read
    /// with `newestFirst(createdAt:id:_:)`.
    public func page<Row: NewestFirstRow>(of rows: [Row]) -> (items: [Row], nextCursor: String?) {
        let items = Array(rows.prefix(limit))
        guard rows.count > limit, let last = items.last else { return (items, nil) }
        return (items, PageCursor(createdAt: last.createdAt, id: last.id).encoded)
    }
}
