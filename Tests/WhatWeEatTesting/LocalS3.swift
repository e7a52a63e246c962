package import Foundation
package import Media
import XCTest

/// A local S3 that checks signatures (`Tests/support/s3_server.py`: PyPI's moto with IAM on),
/// with credentials of its own. Without moto installed the S3 tests are skipped, unless
/// `REQUIRE_S3_TESTS=1` (`.ci/run` installs moto and sets it), where they fail instead.
package final class LocalS3: @unchecked Sendable {
    package let process = Process()
    package let input = Pipe()
    package let endpoint: String
    package let region: String
    package let accessKeyID: String
    package let secretAccessKey: String

    package static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../support/s3_server.py").standardized.path

    package static func start() throws -> LocalS3 {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import moto, boto3"]
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        if probe.terminationStatus != 0 {
            let message = "moto is not installed (python3 -m pip install -r Tests/support/requirements-s3.txt)"
            if ProcessInfo.processInfo.environment["REQUIRE_S3_TESTS"] == "1" { throw ServerFailure(message: message) }
            throw XCTSkip(message)
        }
        return try LocalS3()
    }

    private init() throws {
        let state = NSTemporaryDirectory() + "whatweeat-s3-\(UUID().uuidString).json"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script, "--state", state]
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: state) {
            guard process.isRunning, Date() < deadline else {
                process.terminate()
                throw ServerFailure(message: "the local S3 did not start")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let values = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: state))) as? [String: String] ?? [:]
        endpoint = values["endpoint"] ?? ""
        region = values["region"] ?? ""
        accessKeyID = values["access_key_id"] ?? ""
        secretAccessKey = values["secret_access_key"] ?? ""
    }

    package func configuration(bucket: String, secret: String? = nil) -> S3Client.Configuration {
        S3Client.Configuration(endpoint: endpoint, bucket: bucket, region: region, accessKeyID: accessKeyID,
                               secretAccessKey: secret ?? secretAccessKey)
    }

    package func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
