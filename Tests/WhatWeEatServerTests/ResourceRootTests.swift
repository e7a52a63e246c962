import AsyncHTTPClient
import Banchan
import Foundation
import Platform
import SesacStudyApp
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// The server finds `Resources/`, `Public/` and `openapi.yaml` through `RESOURCES_DIR`, beside its
/// executable, or in the working directory, and says where it looked when none holds them.
final class ResourceRootTests: XCTestCase {
    let checkout = FileManager.default.currentDirectoryPath + "/"

    func testTheOrderOfThePlacesLooked() throws {
        let empty = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: empty) }
        XCTAssertEqual(try ResourceRoot.locate(explicit: checkout, executable: empty + "/whatweeat", workingDirectory: empty), checkout)
        XCTAssertEqual(try ResourceRoot.locate(explicit: nil, executable: checkout + "whatweeat", workingDirectory: empty), checkout,
                       "beside the executable")
        XCTAssertEqual(try ResourceRoot.locate(explicit: nil, executable: empty + "/whatweeat", workingDirectory: checkout), checkout,
                       "then the working directory")
        XCTAssertThrowsError(try ResourceRoot.locate(explicit: empty, executable: checkout + "whatweeat", workingDirectory: checkout)) { error in
            let line = String(describing: error)
            XCTAssertTrue(line.contains("in \(empty)/ ("), "an explicit RESOURCES_DIR is the only place looked: \(line)")
        }
        XCTAssertThrowsError(try ResourceRoot.locate(explicit: nil, executable: empty + "/bin/whatweeat", workingDirectory: empty)) { error in
            let line = String(describing: error)
            XCTAssertTrue(line.hasPrefix("missing translation catalog"), line)
            XCTAssertTrue(line.contains("\(empty)/bin/, \(empty)/ "), "both places, in the order looked: \(line)")
            XCTAssertTrue(line.contains("RESOURCES_DIR"), line)
        }
    }

    /// Real processes started from a folder that is not the checkout.
    func testAServerRunsFromAnyFolder() async throws {
        let elsewhere = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        let data = elsewhere + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)

        // Nothing there, nothing set: it stops and names the places it looked.
        let lost = try ServerProcess(dataDirectory: data, workingDirectory: elsewhere)
        lost.process.waitUntilExit()
        XCTAssertNotEqual(lost.process.terminationStatus, 0)
        let complaint = lost.output()
        XCTAssertTrue(complaint.contains("missing translation catalog"), complaint)
        XCTAssertTrue(complaint.contains(elsewhere + "/"), complaint)

        // RESOURCES_DIR names the checkout.
        let pointed = try ServerProcess(dataDirectory: data, extraEnvironment: ["RESOURCES_DIR": checkout], workingDirectory: elsewhere)
        defer { pointed.stop(signal: SIGTERM) }
        try await pointed.waitUntilHealthy()
        try await assertServesItsFiles(pointed)
        pointed.stop(signal: SIGTERM)

        // A bundle: the binary with the three beside it (a hard link keeps the binary's own path).
        let bundle = elsewhere + "/bundle"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        for item in ["Resources", "Public", "openapi.yaml"] {
            try FileManager.default.createSymbolicLink(atPath: bundle + "/" + item, withDestinationPath: checkout + item)
        }
        let binary = URL(fileURLWithPath: bundle + "/whatweeat")
        do {
            try FileManager.default.linkItem(at: ServerProcess.executable, to: binary)
        } catch {
            try FileManager.default.copyItem(at: ServerProcess.executable, to: binary)  // another file system
        }
        let bundled = try ServerProcess(dataDirectory: data, workingDirectory: elsewhere, executable: binary)
        defer { bundled.stop(signal: SIGTERM) }
        try await bundled.waitUntilHealthy()
        try await assertServesItsFiles(bundled)
    }

    private func assertServesItsFiles(_ server: ServerProcess, file: StaticString = #filePath, line: UInt = #line) async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/openapi.yaml")
        request.method = .GET
        let document = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let text = String(buffer: try await document.body.collect(upTo: 4 << 20))
        XCTAssertTrue(text.hasPrefix("openapi: 3.1"), "openapi.yaml from the resource root", file: file, line: line)
        let style = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/css/app.css"), timeout: .seconds(10))
        XCTAssertEqual(style.status, .ok, "Public/ from the resource root", file: file, line: line)
        let page = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/login"), timeout: .seconds(10))
        let html = String(buffer: try await page.body.collect(upTo: 1 << 20))
        XCTAssertTrue(html.contains("로그인"), "translations from the resource root", file: file, line: line)
    }
}
