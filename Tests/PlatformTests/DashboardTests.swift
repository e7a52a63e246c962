import Foundation
import XCTest

/// deploy/grafana's dashboard is built on metrics that exist: every series it queries is one the
/// code records (a renamed metric would leave an empty panel nobody notices).
final class DashboardTests: XCTestCase {
    func testEverySeriesTheDashboardQueriesIsRecorded() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let dashboard = try String(contentsOf: root.appendingPathComponent("deploy/grafana/whatweeat-dashboard.json"), encoding: .utf8)
        let queried = Set(dashboard.matches(of: /\b(whatweeat_[a-z_]+|process_[a-z_]+|http_[a-z_]+)\b/).map { match in
            String(match.1).replacing(/_(bucket|count|sum)$/, with: "")
        })
        XCTAssertGreaterThan(queried.count, 10)
        var recorded = Set<String>()
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            recorded.formUnion(text.matches(of: /label: "([a-z_]+)"/).map { String($0.1) })
        }
        XCTAssertEqual(queried.subtracting(recorded).sorted(), [], "queried by the dashboard but recorded nowhere")
    }
}
