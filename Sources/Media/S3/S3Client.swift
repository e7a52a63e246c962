package import AsyncHTTPClient
package import Foundation
package import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
package import Platform

/// The few S3 calls uploads need (put, get, head, delete an object; create the bucket), on
/// path-style URLs (`{endpoint}/{bucket}/{key}`), which every S3-compatible server answers.
package struct S3Client: Sendable {
    package struct Configuration: Sendable, Equatable {
        /// `https://s3.ap-northeast-2.amazonaws.com`, `http://127.0.0.1:9000`…: scheme, host, port.
        package var endpoint: String
        package var bucket: String
        package var region: String
        package var accessKeyID: String
        package var secretAccessKey: String

        package init(endpoint: String, bucket: String, region: String, accessKeyID: String, secretAccessKey: String) {
            self.endpoint = endpoint
            self.bucket = bucket
            self.region = region
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
        }
    }

    /// What S3 answered when it was not what the call needs.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package let configuration: Configuration
    private let signer: S3Signer
    private let client: HTTPClient
    private let timeout: TimeAmount
    /// The largest object `get` reads (uploads are far smaller).
    static let largestObject = 64 << 20
    /// What a request is signed as sent at (S3 refuses one more than 15 minutes off its clock).
    private let clock: Now

    package init(_ configuration: Configuration, client: HTTPClient, timeout: TimeAmount = .seconds(30), clock: @escaping Now = WallClock.now) {
        self.clock = clock
        self.configuration = configuration
        self.signer = S3Signer(accessKeyID: configuration.accessKeyID, secretAccessKey: configuration.secretAccessKey,
                               region: configuration.region)
        self.client = client
        self.timeout = timeout
    }

    package func put(_ key: String, _ data: Data, contentType: String) async throws {
        let response = try await send(.PUT, key: key, body: data, headers: ["content-type": contentType])
        guard response.status == .ok else { throw try await failure("PUT \(key)", response) }
    }

    /// The object's bytes, or nil when there is none.
    package func get(_ key: String) async throws -> Data? {
        let response = try await send(.GET, key: key)
        if response.status == .notFound { return nil }
        guard response.status == .ok else { throw try await failure("GET \(key)", response) }
        return Data(buffer: try await response.body.collect(upTo: Self.largestObject))
    }

    /// The object's size, or nil when there is none.
    package func size(_ key: String) async throws -> Int? {
        let response = try await send(.HEAD, key: key)
        if response.status == .notFound { return nil }
        guard response.status == .ok else { throw try await failure("HEAD \(key)", response) }
        return response.headers.first(name: "content-length").flatMap { Int($0) }
    }

    /// Deletes the object (nothing happens when there is none).
    package func delete(_ key: String) async throws {
        let response = try await send(.DELETE, key: key)
        guard [.noContent, .ok, .notFound].contains(response.status) else { throw try await failure("DELETE \(key)", response) }
    }

    /// Creates the bucket, or finds it already ours.
    package func createBucket() async throws {
        let response = try await send(.PUT, key: nil)
        guard response.status == .ok || response.status == .conflict else { throw try await failure("PUT bucket", response) }
        _ = try await response.body.collect(upTo: 1 << 16)
    }

    private func send(_ method: HTTPMethod, key: String?, body: Data? = nil, headers extra: [String: String] = [:]) async throws -> HTTPClientResponse {
        guard let endpoint = URLComponents(string: configuration.endpoint), let host = endpoint.host else {
            throw Failure(description: "S3 endpoint \(configuration.endpoint) is not a URL")
        }
        let basePath = endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path
        let path = basePath + "/" + S3Signer.uriEncode(configuration.bucket) + (key.map { "/" + S3Signer.uriEncode($0, keepSlash: true) } ?? "")
        let payload = body ?? Data()
        var headers = extra
        headers["host"] = endpoint.port.map { "\(host):\($0)" } ?? host
        headers["x-amz-date"] = S3Signer.amzDate(clock())
        headers["x-amz-content-sha256"] = S3Signer.sha256Hex(payload)
        headers["authorization"] = signer.authorization(method: method.rawValue, path: path, headers: headers)

        var request = HTTPClientRequest(url: "\(endpoint.scheme ?? "https")://\(headers["host"] ?? host)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(data: body)) }
        do {
            return try await client.execute(request, timeout: timeout)
        } catch {
            throw Failure(description: "S3 unreachable at \(configuration.endpoint): \(error)")
        }
    }

    private func failure(_ call: String, _ response: HTTPClientResponse) async throws -> Failure {
        let text = (try? await response.body.collect(upTo: 1 << 16)).map { String(buffer: $0) } ?? ""
        let code = text.range(of: "<Code>").flatMap { start in
            text.range(of: "</Code>", range: start.upperBound..<text.endIndex).map { String(text[start.upperBound..<$0.lowerBound]) }
        }
        return Failure(description: "S3 \(call): \(response.status.code) \(code ?? "")")
    }
}
