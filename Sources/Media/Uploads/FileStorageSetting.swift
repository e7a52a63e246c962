import AsyncHTTPClient
import Fluent
import Foundation
import Logging
package import Platform
import Vapor

/// Where uploads are kept (`UPLOAD_STORAGE`, `S3_*`); `settings[section: MediaSettings.self]`.
package struct MediaSettings: SettingsSection, Equatable {
    package enum Storage: Sendable, Equatable {
        /// `disk` with SQLite (one instance), `database` with PostgreSQL (any number of them).
        case automatic
        /// `DATA_DIR/uploads` of the instance that took the file.
        case disk
        /// The `stored_files` table.
        case database
        /// An S3-compatible bucket.
        case s3(S3Client.Configuration)
    }

    package var storage: Storage = .automatic

    package init() {}

    /// `UPLOAD_STORAGE` (`disk`, `database` or `s3`; `s3` when unset and `S3_BUCKET` is set) and,
    /// for a bucket, `S3_BUCKET`, `S3_REGION` (default `us-east-1`), `S3_ENDPOINT` (default AWS's
    /// for the region), `S3_ACCESS_KEY_ID` and `S3_SECRET_ACCESS_KEY` (or `AWS_ACCESS_KEY_ID` and
    /// `AWS_SECRET_ACCESS_KEY`).
    package static func load(from environment: EnvironmentVariables) throws -> MediaSettings {
        var media = MediaSettings()
        let bucket = environment.value("S3_BUCKET")
        switch environment.value("UPLOAD_STORAGE")?.lowercased() ?? (bucket == nil ? nil : "s3") {
        case nil: media.storage = .automatic
        case "disk": media.storage = .disk
        case "database": media.storage = .database
        case "s3":
            guard let bucket else {
                throw SettingsError(variable: "S3_BUCKET", value: "", expected: "the bucket's name when UPLOAD_STORAGE=s3")
            }
            let region = environment.value("S3_REGION") ?? "us-east-1"
            let endpoint = environment.value("S3_ENDPOINT") ?? "https://s3.\(region).amazonaws.com"
            guard let url = URLComponents(string: endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host?.isEmpty == false,
                  url.query == nil else {
                throw SettingsError(variable: "S3_ENDPOINT", value: endpoint, expected: "http(s)://host[:port] of an S3-compatible server")
            }
            guard let keyID = environment.value("S3_ACCESS_KEY_ID") ?? environment.value("AWS_ACCESS_KEY_ID"),
                  let secret = environment.value("S3_SECRET_ACCESS_KEY") ?? environment.value("AWS_SECRET_ACCESS_KEY") else {
                throw SettingsError(variable: "S3_ACCESS_KEY_ID", value: "", expected: "the bucket's access key id and S3_SECRET_ACCESS_KEY")
            }
            media.storage = .s3(S3Client.Configuration(endpoint: endpoint, bucket: bucket, region: region,
                                                       accessKeyID: keyID, secretAccessKey: secret))
        case let other?:
            throw SettingsError(variable: "UPLOAD_STORAGE", value: other, expected: "disk, database or s3")
        }
        return media
    }

    /// Photos and the keys' signatures go to a bucket on another machine only over TLS.
    package func productionProblem(in settings: Settings) -> SettingsError? {
        guard case .s3(let bucket) = storage else { return nil }
        return Settings.cleartextProblem("S3_ENDPOINT", url: bucket.endpoint)
    }
}

extension Application {
    /// Chooses and sets `files` and `storageQuota` for these settings; `directory` is
    /// `DATA_DIR/uploads`. With PostgreSQL and files on disk, a warning: each instance then serves
    /// only the photos it took.
    package func useFileStorage(_ settings: Settings, directory: String) throws {
        var storage = settings[section: MediaSettings.self].storage
        AppMetrics.countersStartAtZero(["whatweeat_uploads_refused_disk_full_total", "whatweeat_uploads_refused_network_day_total"])
        if storage == .automatic {
            if case .postgres = settings.database { storage = .database } else { storage = .disk }
        }
        switch storage {
        case .automatic, .disk:
            files = try DiskFileStorage(directory: directory)
            if case .postgres = settings.database {
                logger.warning("UPLOAD_STORAGE=disk with PostgreSQL: each instance serves only the files it took (README.md, UPLOAD_STORAGE)")
            }
        case .database:
            files = DatabaseFileStorage(database: { [unowned self] in self.db.sql })
        case .s3(let configuration):
            // A client of its own: a bucket that does not answer fails a request in two seconds,
            // not the ten the shared client waits to connect.
            let client = HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: .init(
                timeout: .init(connect: .seconds(2), read: .seconds(30))))
            lifecycle.use(HTTPClientShutdown(client: client))
            let s3 = S3Client(configuration, client: client, clock: siteClock)
            files = S3FileStorage(client: s3, logger: logger)
            // `/readyz` asks the bucket too (a key nobody stores: any answer but a failure will do).
            // Within two seconds: a bucket that connects but never answers must not hold `/readyz` (the read timeout is 30 s).
            readinessCheck("files") { _ in
                await withTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        do {
                            _ = try await s3.size(S3FileStorage.prefix + ".readiness")  // nil (no such key) is an answer too
                            return true
                        } catch {
                            return false
                        }
                    }
                    group.addTask { try? await Task.sleep(for: .seconds(2)); return false }
                    defer { group.cancelAll() }
                    return await group.next() ?? false
                }
            }
        }
        // The disk floor guards the files' own disk only when they are on this machine's.
        storageQuota = StorageQuota(settings: settings, directory: files is DiskFileStorage ? directory : nil)
    }

    /// Files an earlier version left in `DATA_DIR/uploads` are copied into the database or the
    /// bucket when that is where files are kept now (a key already stored is skipped), so a move to
    /// PostgreSQL or S3 loses no photo. The folder is left as it was, with a note of the keys it held
    /// when all of them were carried (`.carried`): a later start with the same keys asks nothing of
    /// the storage. Returns how many moved.
    @discardableResult
    package func carryOverDiskUploads(from directory: String) async throws -> Int {
        guard !(files is DiskFileStorage), FileManager.default.fileExists(atPath: directory),
              let disk = try? DiskFileStorage(directory: directory) else { return 0 }
        let keys = try disk.keys()
        let note = (directory as NSString).appendingPathComponent(".carried")
        let held = SecureRandom.sha256Hex(Data(keys.joined(separator: "\n").utf8)) + " " + files.place
        if (try? String(contentsOfFile: note, encoding: .utf8)) == held { return 0 }
        var carried = 0
        for key in keys {
            guard try await files.size(of: key) == nil, let path = disk.path(for: key),
                  let type = key.split(separator: ".").last.flatMap({ ImageType(rawValue: String($0)) }) else { continue }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard DiskFileStorage.key(for: data, as: type) == key else {
                logger.warning("uploads: \(path) does not hold the bytes its name says; not carried over")
                continue
            }
            _ = try await files.save(data, as: type)
            carried += 1
        }
        if carried > 0 { logger.notice("uploads: carried \(carried) files from \(directory) to the \(files.place)") }
        // Only a shortcut for the next start: without it, that start checks the keys again.
        do { try held.write(toFile: note, atomically: true, encoding: .utf8) } catch {
            logger.warning("uploads: could not write \(note) (the next start checks every key again): \(error)")
        }
        return carried
    }
}

/// Shuts a client of our own down with the application.
private struct HTTPClientShutdown: LifecycleHandler {
    let client: HTTPClient

    func shutdownAsync(_ application: Application) async {
        try? await client.shutdown()
    }
}
