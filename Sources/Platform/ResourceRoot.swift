import Foundation

/// The folder holding `Resources/` (catalogs, translations), `Public/` (styles, scripts) and
/// `openapi.yaml`: `RESOURCES_DIR` when set, else the executable's own folder (a deployed bundle:
/// the binary with the three copied beside it, see README.md), else the working directory (a
/// checkout, `swift run`). Chosen once at start-up; a start finding none of them stops with the
/// places it looked.
package enum ResourceRoot {
    struct NotFound: Error, CustomStringConvertible {
        let looked: [String]
        var description: String {
            "missing translation catalog: no Resources/translations in " + looked.joined(separator: ", ")
                + " (set RESOURCES_DIR to the folder that holds Resources/, Public/ and openapi.yaml)"
        }
    }

    /// The root, ending in `/`. An explicit `RESOURCES_DIR` is the only place looked when given.
    package static func locate(explicit: String?, executable: String? = executablePath(),
                       workingDirectory: String = FileManager.default.currentDirectoryPath) throws -> String {
        let candidates: [String]
        if let explicit {
            candidates = [explicit]
        } else {
            candidates = [executable.map { ($0 as NSString).deletingLastPathComponent }, workingDirectory].compactMap { $0 }
        }
        let roots = candidates.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        guard let found = roots.first(where: holdsResources) else { throw NotFound(looked: roots) }
        return found
    }

    static func holdsResources(_ root: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: root + "Resources/translations", isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// This process's executable, as it was started (a hard link's own path, not its target's).
    static func executablePath() -> String? {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath
    }
}
