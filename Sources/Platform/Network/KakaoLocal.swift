package import Foundation
import NIOFoundationEssentialsCompat
package import Vapor

/// `KAKAO_REST_API_KEY` and `KAKAO_API_URL`: the Kakao Local API, which finds restaurants near a
/// person by a menu's name (issue 60) and, later, addresses. `settings.kakao`. Without a key
/// nothing is asked of Kakao: pages offer our own places and the map apps' links, as before.
package struct KakaoLocalSettings: SettingsSection, Equatable {
    /// The app's REST API key (Kakao Developers → 앱 키 → REST API 키); nil: off.
    package var restAPIKey: String?
    /// Where the API is (a test points it at its stand-in).
    package var apiURL = "https://dapi.kakao.com"

    package init() {}

    package static func load(from environment: EnvironmentVariables) throws -> KakaoLocalSettings {
        var settings = KakaoLocalSettings()
        if let key = environment.value("KAKAO_REST_API_KEY"), !key.isEmpty {
            guard key.utf8.count <= 128, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw SettingsError(variable: "KAKAO_REST_API_KEY", value: "(hidden)", expected: "a Kakao REST API key (letters and digits)")
            }
            settings.restAPIKey = key
        }
        if let url = environment.value("KAKAO_API_URL") {
            guard let parsed = URL(string: url), parsed.scheme == "https" || parsed.scheme == "http", parsed.host != nil else {
                throw SettingsError(variable: "KAKAO_API_URL", value: url, expected: "an http(s) URL such as https://dapi.kakao.com")
            }
            settings.apiURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        return settings
    }

    /// The key would cross in clear to another machine.
    package func productionProblem(in settings: Settings) -> SettingsError? {
        Settings.cleartextProblem("KAKAO_API_URL", url: apiURL)
    }
}

extension Settings {
    package var kakao: KakaoLocalSettings {
        get { self[section: KakaoLocalSettings.self] }
        set { self[section: KakaoLocalSettings.self] = newValue }
    }
}

/// A place as Kakao Local answers it.
package struct KakaoPlace: Codable, Sendable, Equatable {
    package let id: String
    package let name: String
    /// `음식점 > 한식 > 찌개,전골`.
    package let category: String
    package let phone: String
    /// The lot-number address, and the road address when Kakao has one.
    package let address: String
    package let roadAddress: String
    /// The place's page on Kakao Map.
    package let url: String
    package let coordinate: Coordinate

    package init(id: String, name: String, category: String, phone: String, address: String, roadAddress: String, url: String, coordinate: Coordinate) {
        self.id = id
        self.name = name
        self.category = category
        self.phone = phone
        self.address = address
        self.roadAddress = roadAddress
        self.url = url
        self.coordinate = coordinate
    }
}

/// An address as Kakao Local's address search answers it.
package struct KakaoAddress: Codable, Sendable, Equatable {
    /// The lot-number address, and the road address when Kakao has one.
    package let address: String
    package let roadAddress: String
    package let coordinate: Coordinate

    package init(address: String, roadAddress: String, coordinate: Coordinate) {
        self.address = address
        self.roadAddress = roadAddress
        self.coordinate = coordinate
    }
}

/// Kakao said no, or said nothing readable: the caller falls back to what it shows without Kakao.
package struct KakaoLocalFailure: Error, Equatable {
    package let status: Int
}

/// A client of Kakao Local (with `Authorization: KakaoAK {key}`): its keyword search
/// (`GET /v2/local/search/keyword.json`: restaurants, category `FD6`, matching a query within a
/// radius, nearest first) and its address search (where an address is).
package struct KakaoLocal: Sendable {
    let client: any Client
    let key: String
    let apiURL: String

    /// Nil without a key.
    package init?(settings: KakaoLocalSettings, client: any Client) {
        guard let key = settings.restAPIKey else { return nil }
        self.client = client
        self.key = key
        self.apiURL = settings.apiURL
    }

    /// The restaurants matching `query` within `radius` metres (at most 20 000) of `point`,
    /// nearest first, one page of at most 15.
    package func restaurants(matching query: String, near point: Coordinate, radius: Int) async throws -> [KakaoPlace] {
        try Self.places(in: try await get("/v2/local/search/keyword.json", [
            URLQueryItem(name: "query", value: query), URLQueryItem(name: "category_group_code", value: "FD6"),
            URLQueryItem(name: "x", value: String(point.lon)), URLQueryItem(name: "y", value: String(point.lat)),
            URLQueryItem(name: "radius", value: String(min(max(radius, 0), 20_000))), URLQueryItem(name: "sort", value: "distance"),
            URLQueryItem(name: "size", value: "15"),
        ]))
    }

    /// Where an address is (`GET /v2/local/search/address.json`): Kakao's first match, with its
    /// road address when it has one; nil when it knows none.
    package func address(_ query: String) async throws -> KakaoAddress? {
        try Self.addresses(in: try await get("/v2/local/search/address.json", [URLQueryItem(name: "query", value: query),
                                                                              URLQueryItem(name: "size", value: "1")])).first
    }

    /// One of Kakao Local's GETs with the app's key: the answer's body, or `KakaoLocalFailure`.
    private func get(_ path: String, _ query: [URLQueryItem]) async throws -> Data {
        var components = URLComponents(string: apiURL + path)
        components?.queryItems = query
        guard let url = components?.url?.absoluteString else { throw KakaoLocalFailure(status: 0) }
        let response = try await client.get(URI(string: url), headers: ["Authorization": "KakaoAK \(key)"])
        guard response.status == .ok, let body = response.body else { throw KakaoLocalFailure(status: Int(response.status.code)) }
        return Data(buffer: body)
    }

    /// What every Kakao Local search answers: `{"documents": [...]}`, each document with its
    /// position as `x` (longitude) and `y` (latitude) strings. The documents with a readable
    /// position, each with it; `KakaoLocalFailure` for an answer that is not that.
    private protocol Answering: Decodable {
        associatedtype Document: Decodable
        var documents: [Document] { get }
    }

    private static func documents<Answer: Answering>(_ type: Answer.Type, in json: Data,
                                                     position: (Answer.Document) -> (x: String, y: String)) throws -> [(Answer.Document, Coordinate)] {
        guard let answer = try? JSONDecoder().decode(Answer.self, from: json) else { throw KakaoLocalFailure(status: 200) }
        return answer.documents.compactMap { document in
            let (x, y) = position(document)
            guard let lon = Double(x), let lat = Double(y), let coordinate = try? Coordinate(lat: lat, lon: lon) else { return nil }
            return (document, coordinate)
        }
    }

    /// The matches of an address search's JSON; one without a readable position is left out.
    package static func addresses(in json: Data) throws -> [KakaoAddress] {
        struct Answer: Answering {
            struct Document: Decodable {
                struct Road: Decodable { let address_name: String? }
                let address_name: String?
                let road_address: Road?
                let x: String
                let y: String
            }
            let documents: [Document]
        }
        return try documents(Answer.self, in: json, position: { ($0.x, $0.y) }).map { document, coordinate in
            KakaoAddress(address: document.address_name ?? "", roadAddress: document.road_address?.address_name ?? "", coordinate: coordinate)
        }
    }

    /// The places of a keyword search's JSON (its `documents`); a document without a readable
    /// position is left out.
    package static func places(in json: Data) throws -> [KakaoPlace] {
        struct Answer: Answering {
            struct Document: Decodable {
                let id: String
                let place_name: String
                let category_name: String?
                let phone: String?
                let address_name: String?
                let road_address_name: String?
                let place_url: String?
                let x: String
                let y: String
            }
            let documents: [Document]
        }
        return try documents(Answer.self, in: json, position: { ($0.x, $0.y) }).map { document, coordinate in
            KakaoPlace(id: document.id, name: document.place_name, category: document.category_name ?? "", phone: document.phone ?? "",
                              address: document.address_name ?? "", roadAddress: document.road_address_name ?? "",
                              url: placePage(document.place_url, id: document.id), coordinate: coordinate)
        }
    }

    /// The place's page as pages link it: Kakao's own `place_url` only when it is an http(s)
    /// address on kakao.com (a page puts it in an `href`), else the page Kakao keeps for the id.
    static func placePage(_ given: String?, id: String) -> String {
        if let given, let url = URL(string: given), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
           let host = url.host?.lowercased(), host == "kakao.com" || host.hasSuffix(".kakao.com"), url.user == nil {
            return given
        }
        guard !id.isEmpty, id.utf8.count <= 32, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return "https://map.kakao.com/" }
        return "https://place.map.kakao.com/\(id)"
    }
}
