import Media
package import XCTVapor

extension Application {
    /// Every stored upload's bytes by key, wherever this app keeps them (disk or database).
    package func storedUploads() async throws -> [String: Data] {
        let keys: [String]
        switch files {
        case let disk as DiskFileStorage: keys = try disk.keys()
        case let database as DatabaseFileStorage: keys = try await database.keys()
        default: throw ServerFailure(message: "uploads kept in \(files.place) are not listed")
        }
        var stored: [String: Data] = [:]
        for key in keys {
            switch try await files.content(of: key) {
            case .file(let path)?: stored[key] = try Data(contentsOf: URL(fileURLWithPath: path))
            case .bytes(let data)?: stored[key] = data
            case nil: break
            }
        }
        return stored
    }
}
