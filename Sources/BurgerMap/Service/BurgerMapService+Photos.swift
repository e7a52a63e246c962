import Accounts
package import Fluent
package import Media
import Platform
import SQLKit
import Vapor

extension BurgerMapService {
    static let maxPhotoBytes = 5 * 1024 * 1024
    /// Photos one account may hold that no review has taken yet: enough for a review being
    /// written on two devices, not a free image host.
    static let maxPendingPhotos = 30
    /// A photo no review took within this long is deleted.
    static let pendingPhotoLifetime: TimeInterval = 24 * 60 * 60

    /// Stores an uploaded photo without its metadata; it waits for a review to take it.
    func addPhoto(_ data: Data, by userID: UUID, from network: String) async throws -> PhotoRow {
        try await addPhotos([data], by: userID, from: network)[0]
    }

    /// Stores uploaded photos (1–5, as many as a review holds) without their metadata. Every one is
    /// checked before any is stored, so a bad third file leaves nothing behind. Each file counts
    /// against the uploader's hourly rate and their storage quota (and, for a young account, its
    /// network's day), all taken before any is written.
    package func addPhotos(_ uploads: [Data], by userID: UUID, from network: String) async throws -> [PhotoRow] {
        guard !uploads.isEmpty else { throw AppError.badRequest("empty_upload") }
        guard BurgerMapRules.photosPerReview.contains(uploads.count) else { throw AppError.invalid("invalid_photo_count") }
        let images = try uploads.map { data in
            guard !data.isEmpty else { throw AppError.badRequest("empty_upload") }
            guard data.count <= Self.maxPhotoBytes else { throw AppError(.payloadTooLarge, "image_too_large", arguments: ["max": "5 MB"]) }
            do throws(ImageProblem) { return try ImageCleaner.clean(data) } catch {
                // The code profile pictures use; the message leaves out GIF, which photos refuse.
                throw error.appError(unsupportedMessageKey: "error.unsupported_photo_type")
            }
        }
        let pending = try await store.pendingPhotoCount(of: userID)
        guard pending + images.count <= Self.maxPendingPhotos else {
            throw AppError(.tooManyRequests, "too_many_pending_photos", arguments: ["max": String(Self.maxPendingPhotos)])
        }
        // One slot of the hourly rate per file, then the bytes of the quota; a refusal of either
        // gives back what was taken (nothing was stored).
        var slots: [RateLimiter.Slot] = []
        let bytes = images.reduce(0) { $0 + $1.data.count }
        let uploader = StorageQuota.Uploader(account: userID, accountCreatedAt: try await AccountStore.createdAt(of: userID, on: database), network: network)
        do {
            for _ in images { slots.append(try await limits.photos.reserve(userID.uuidString, code: "too_many_uploads")) }
            try await quota.reserve(bytes, by: uploader, on: database, now: environment.now())
        } catch {
            for slot in slots { await limits.photos.release(slot) }
            throw error
        }
        var photos: [PhotoRow] = []
        do {
            for image in images {
                let key = try await files.save(image.data, as: image.type)
                photos.append(try await store.addPhoto(owner: userID, fileKey: key, width: image.width, height: image.height))
            }
        } catch {
            // What was not kept does not count.
            var kept = 0
            for photo in photos { kept += await files.byteCount(of: photo.fileKey) }
            await quota.giveBack(bytes - kept, by: uploader, on: database, now: environment.now())
            throw error
        }
        return photos
    }

    /// Deletes photos no review took in time, and their files when nothing else shows them.
    /// Returns how many went.
    func deleteAbandonedPhotos() async throws -> Int {
        let abandoned = try await store.abandonedPhotos(before: environment.now().addingTimeInterval(-Self.pendingPhotoLifetime), limit: 500)
        for photo in abandoned { try await deletePhoto(photo) }
        return abandoned.count
    }

    package func deletePhoto(_ photo: PhotoRow) async throws {
        let bytes = await files.byteCount(of: photo.fileKey)
        try await store.deletePhoto(photo.id)
        await quota.release(bytes, for: photo.ownerID, on: database)
        try await deleteFileIfUnused(photo.fileKey)
    }

    package func deleteFileIfUnused(_ key: String?) async throws {
        try await files.deleteIfUnused(key, on: database, references: fileReferences)
    }

    /// Where a photo is seen: its file, or its generated artwork.
    package func photoURL(_ photo: PhotoRow) -> String {
        Self.photoURL(fileKey: photo.fileKey, id: photo.id, files: files)
    }

    package static func photoURL(fileKey: String?, id: UUID, files: any FileStorage) -> String {
        if let fileKey { return files.urlPath(for: fileKey) }
        return "/images/burger-map/photos/\(id.uuidString.lowercased()).svg"
    }
}
