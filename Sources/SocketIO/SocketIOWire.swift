import Vapor

/// Engine.IO 4 packets as text: one type digit, then the data. Binary packets (`b…` over polling,
/// binary frames over WebSocket) are not supported and are never parsed into one of these.
package enum EnginePacket: Equatable, Sendable {
    case open(String)
    case close
    case ping(String)
    case pong(String)
    case message(String)
    case upgrade
    case noop

    /// Packets in one polling body are joined by the record separator.
    package static let separator: Character = "\u{1e}"

    package init?(_ text: some StringProtocol) {
        guard let type = text.first else { return nil }
        let data = String(text.dropFirst())
        switch type {
        case "0": self = .open(data)
        case "1": self = .close
        case "2": self = .ping(data)
        case "3": self = .pong(data)
        case "4": self = .message(data)
        case "5": self = .upgrade
        case "6": self = .noop
        default: return nil
        }
    }

    package var encoded: String {
        switch self {
        case .open(let data): "0" + data
        case .close: "1"
        case .ping(let data): "2" + data
        case .pong(let data): "3" + data
        case .message(let data): "4" + data
        case .upgrade: "5"
        case .noop: "6"
        }
    }

    /// The body of a polling POST split into its packets.
    package static func split(payload: String) -> [Substring] {
        payload.split(separator: separator, omittingEmptySubsequences: true)
    }
}

/// A Socket.IO 5 packet, carried as the data of an Engine.IO message:
/// `<type>[<attachments>-][<namespace>,][<ack id>][<JSON>]`, e.g. `0`, `0{"token":"…"}`,
/// `2["chat","안녕"]`, `21["chat","안녕"]`, `31["ok"]`, `4/admin,{"message":"Invalid namespace"}`.
struct SocketIOPacket: Equatable, Sendable {
    package enum Kind: Int, Sendable {
        case connect = 0, disconnect, event, ack, connectError, binaryEvent, binaryAck
    }

    var kind: Kind
    var namespace: String = "/"
    var id: Int?
    var data: SocketIOValue?

    init(_ kind: Kind, namespace: String = "/", id: Int? = nil, data: SocketIOValue? = nil) {
        self.kind = kind
        self.namespace = namespace
        self.id = id
        self.data = data
    }

    /// The longest acknowledgement id read (JavaScript counts from 0; nothing legitimate is longer).
    static let maxIDDigits = 15

    /// Reads a packet; nil when it is not one (unknown type, a bad namespace or JSON that does not parse).
    init?(decoding text: String) {
        var rest = Substring(text)
        guard let first = rest.first, let digit = first.wholeNumberValue, let kind = Kind(rawValue: digit) else { return nil }
        rest = rest.dropFirst()
        if kind == .binaryEvent || kind == .binaryAck {
            // The attachment count: digits then `-`. Kept only to read the rest of the packet.
            let count = rest.prefix { $0.isASCII && $0.isNumber }
            guard !count.isEmpty, count.count <= 6, rest.dropFirst(count.count).first == "-" else { return nil }
            rest = rest.dropFirst(count.count + 1)
        }
        var namespace = "/"
        if rest.first == "/" {
            // Up to the comma, or (as the reference parser reads `1/admin`) to the end.
            let comma = rest.firstIndex(of: ",") ?? rest.endIndex
            namespace = String(rest[..<comma])
            rest = comma == rest.endIndex ? "" : rest[rest.index(after: comma)...]
        }
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        var id: Int?
        if !digits.isEmpty {
            guard digits.count <= Self.maxIDDigits, let number = Int(digits) else { return nil }
            id = number
            rest = rest.dropFirst(digits.count)
        }
        var data: SocketIOValue?
        if !rest.isEmpty {
            guard let value = SocketIOValue(json: rest) else { return nil }
            data = value
        }
        self.init(kind, namespace: namespace, id: id, data: data)
    }

    var encoded: String {
        var text = String(kind.rawValue)
        if namespace != "/" { text += namespace + "," }
        if let id { text += String(id) }
        if let data { text += data.json }
        return text
    }
}

/// The errors an Engine.IO server answers a request it cannot serve with: HTTP 400 and
/// `{"code":…,"message":…}`, as the reference server words them (clients read the code).
enum EngineError: Int, Error, Sendable {
    case unknownTransport = 0
    case unknownSession = 1
    case badHandshakeMethod = 2
    case badRequest = 3
    case forbidden = 4
    case unsupportedProtocolVersion = 5

    var message: String {
        switch self {
        case .unknownTransport: "Transport unknown"
        case .unknownSession: "Session ID unknown"
        case .badHandshakeMethod: "Bad handshake method"
        case .badRequest: "Bad request"
        case .forbidden: "Forbidden"
        case .unsupportedProtocolVersion: "Unsupported protocol version"
        }
    }

    var response: Response {
        let status: HTTPResponseStatus = self == .forbidden ? .forbidden : .badRequest
        return Response(
            status: status, headers: ["Content-Type": "application/json"],
            body: .init(string: #"{"code":\#(rawValue),"message":"\#(message)"}"#))
    }
}

extension Response {
    /// A polling answer: packets joined by the record separator, as text.
    static func engineText(_ text: String, status: HTTPResponseStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "text/plain; charset=UTF-8"], body: .init(string: text))
    }
}
