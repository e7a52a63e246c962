import AsyncHTTPClient
import NIOFoundationEssentialsCompat
import Platform
import SocketIO
package import XCTVapor

/// One `whatweeat` process on a free port with its own data directory (and the suite's database).
package final class ServerProcess: @unchecked Sendable {
    package let process = Process()
    package let port: Int
    package let logPath: String
    package let errorPath: String

    /// `softFileLimit` starts the server with that soft limit on open files (as `ulimit -Sn`).
    /// `workingDirectory` and `executable` default to the checkout and the built binary.
    package init(dataDirectory: String, extraEnvironment: [String: String] = [:], softFileLimit: Int? = nil,
         workingDirectory: String? = nil, executable: URL? = nil) throws {
        port = try freePort()
        logPath = dataDirectory + "/server-\(port).log"
        errorPath = dataDirectory + "/server-\(port).err"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        if let softFileLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -Sn \(softFileLimit) && exec \"$0\"", (executable ?? Self.executable).path]
        } else {
            process.executableURL = executable ?? Self.executable
        }
        var environment = ProcessInfo.processInfo.environment
        environment["DATA_DIR"] = dataDirectory
        environment["PORT"] = String(port)
        environment["BCRYPT_COST"] = "4"
        environment["LOG_LEVEL"] = "warning"
        environment["DATABASE_URL"] = TestDatabase.postgresURL
        for (key, value) in extraEnvironment { environment[key] = value }
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory ?? FileManager.default.currentDirectoryPath)
        process.standardOutput = FileHandle(forWritingAtPath: logPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
    }

    /// Runs `whatweeat <arguments>` to its end with the same environment a server here gets
    /// (this data directory, the suite's database); returns its exit status and what it printed.
    package static func run(_ arguments: [String], dataDirectory: String, extraEnvironment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DATA_DIR"] = dataDirectory
        environment["LOG_LEVEL"] = "warning"
        environment["DATABASE_URL"] = TestDatabase.postgresURL
        for (key, value) in extraEnvironment { environment[key] = value }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// The executable beside the test bundle in `.build/<configuration>/`.
    package static var executable: URL {
        #if os(Linux)
        // The test runner is itself an executable in `.build/<configuration>/`.
        return Bundle.main.bundleURL.appendingPathComponent("whatweeat")
        #else
        let testBundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") } ?? Bundle.main
        return testBundle.bundleURL.deletingLastPathComponent().appendingPathComponent("whatweeat")
        #endif
    }

    package func standardError() -> String {
        (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
    }

    package func waitUntilHealthy(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard process.isRunning else {
                throw ServerFailure(message: "exited with \(process.terminationStatus): \(standardError())")
            }
            if let response = try? await get("/healthz"), response.status == .ok { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ServerFailure(message: "not healthy within \(timeout)")
    }

    package func stop(signal: Int32) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    package struct Reply {
        package let status: HTTPResponseStatus
        package let json: [String: Any]
        package let text: String
    }

    package func get(_ path: String, token: String? = nil) async throws -> Reply {
        try await send(.GET, path, body: nil, token: token)
    }

    package func post(_ path: String, json: [String: String]) async throws -> Reply {
        try await send(.POST, path, body: try JSONEncoder().encode(json), token: nil)
    }

    package func send(_ method: HTTPMethod, _ path: String, json: some Encodable, token: String?) async throws -> Reply {
        try await send(method, path, body: try JSONEncoder().encode(json), token: token)
    }

    /// With headers of the caller's (a device token, an idempotency key); `json` may be nil.
    package func send(_ method: HTTPMethod, _ path: String, json: (some Encodable)?, headers: HTTPHeaders) async throws -> Reply {
        try await send(method, path, body: try json.map { try JSONEncoder().encode($0) }, token: nil, headers: headers)
    }

    /// Sends `body` as it is, with its own type (an image).
    package func send(_ method: HTTPMethod, _ path: String, body: Data, contentType: String, token: String?) async throws -> Reply {
        try await send(method, path, body: body, token: token, headers: ["Content-Type": contentType])
    }

    /// Waits for the process to end by itself (after a signal it handles); false if it is still running after `timeout`.
    package func waitForExit(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        return !process.isRunning
    }

    /// What the process wrote to its standard output and error so far (its log).
    package func output() -> String {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "") + standardError()
    }

    private func send(_ method: HTTPMethod, _ path: String, body: Data?, token: String?, headers: HTTPHeaders = [:]) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        request.headers.add(contentsOf: headers)
        if let body {
            if !request.headers.contains(name: "Content-Type") { request.headers.add(name: "Content-Type", value: "application/json") }
            request.body = .bytes(ByteBuffer(data: body))
        }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Reply(status: response.status, json: object, text: String(decoding: data, as: UTF8.self))
    }
}

package struct ServerFailure: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}
