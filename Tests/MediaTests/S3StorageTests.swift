import AsyncHTTPClient
import Fluent
@testable import Media
import Platform
import WhatWeEatTesting
import XCTVapor

/// Uploads kept in an S3-compatible bucket, against a local S3 that checks signatures.
final class S3StorageTests: XCTestCase {
    var s3: LocalS3!

    override func setUp() async throws {
        s3 = try LocalS3.start()
    }

    override func tearDown() async throws {
        s3?.stop()
    }

    func testTheClientSignsEveryCallAndS3Accepts() async throws {
        let client = S3Client(s3.configuration(bucket: "whatweeat-client"), client: .shared)
        try await client.createBucket()
        try await client.createBucket()  // already ours: fine
        let bytes = Data("a photo's bytes".utf8)
        try await client.put("uploads/one.png", bytes, contentType: "image/png")
        let size = try await client.size("uploads/one.png")
        XCTAssertEqual(size, bytes.count)
        let back = try await client.get("uploads/one.png")
        XCTAssertEqual(back, bytes)
        let none = try await client.get("uploads/none.png")
        XCTAssertNil(none)
        let noSize = try await client.size("uploads/none.png")
        XCTAssertNil(noSize)
        try await client.delete("uploads/one.png")
        let deleted = try await client.get("uploads/one.png")
        XCTAssertNil(deleted)
        try await client.delete("uploads/one.png")  // gone already: fine

        let forged = S3Client(s3.configuration(bucket: "whatweeat-client", secret: "not-the-secret"), client: .shared)
        do {
            _ = try await forged.get("uploads/one.png")
            XCTFail("a request signed with the wrong secret was answered")
        } catch let failure as S3Client.Failure {
            XCTAssertTrue(failure.description.contains("SignatureDoesNotMatch") || failure.description.contains("403"), failure.description)
        }
    }
}
