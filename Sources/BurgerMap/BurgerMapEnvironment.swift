package import Fluent
import Foundation
package import Media
package import Platform
import Vapor

/// What the map's services and store use beside their database, made once by
/// `BurgerMapFeature.configure` and kept under one key (issue 59): the clock, the event bus, the
/// log, where photos are kept and who uses them, the upload quota, the map's memories (the place
/// index, the places' versions, the kept answers and values) and its budgets. The store takes this
/// and a database, never the application.
package struct BurgerMapEnvironment: FeatureEnvironment {
    /// The map's one source of time (edits, hidings, report windows, a young account's age, the
    /// abandoned-photo sweep): a test moves it instead of rewriting rows.
    package var now: @Sendable () -> Date
    package let events: any EventBus
    package let logger: Logger
    package let files: any FileStorage
    package let fileReferences: FileReferences
    package let quota: StorageQuota
    package let placeIndex: PlaceIndex
    package let placeVersions: PlaceVersions
    /// Encoded public answers (boxes, the newest reviews, feeds), dropped on every write that could
    /// change them, here or on another instance.
    package let cache: ResponseCache
    /// Places' details, reviews' cards and people's counts as every anonymous reader sees them,
    /// kept like the cache's answers (until the next write).
    let keptPlaceDetails: KeptValues<PlaceDetail>
    let keptReviewCards: KeptValues<ReviewCard>
    let keptProfileCounts: KeptValues<MapProfileCounts>
    /// A signed-in reader's own marks on a place and reactions to a review, as the place's and the
    /// review's pages read them, kept by the same rule: every mark and reaction is a content write
    /// (`MapAnnouncements.contentChanged`), which drops them here at once and on other instances
    /// through the bus.
    let keptViewerMarks: KeptValues<[BurgerMark.Kind]>
    let keptViewerReactions: KeptValues<ViewerReactions>
    /// A person's page head as one reader sees it (whether they follow).
    let keptProfiles: KeptValues<MapProfile>
    package let limits: BurgerMapLimits
    /// Moves after every write the console's moderation shows (reports, their decisions, hidden
    /// reviews, suggestions), here and on every instance: Today's map figures and the Moderation
    /// tab are kept until it (or the cache's generation, which every content write moves) moved.
    package let moderation = ChangeVersion(topic: "burger-map.moderation")

    /// The environment of `app` as `configure` left it (files, quota and bus are the platform's).
    static func make(for app: Application) -> BurgerMapEnvironment {
        let cache = ResponseCache()
        return BurgerMapEnvironment(
            now: app.siteClock, events: app.events, logger: app.logger, files: app.files, fileReferences: app.fileReferences,
            quota: app.storageQuota, placeIndex: PlaceIndex(), placeVersions: PlaceVersions(), cache: cache,
            keptPlaceDetails: KeptValues(name: "burger_map_place_details", following: cache),
            keptReviewCards: KeptValues(name: "burger_map_review_cards", following: cache),
            keptProfileCounts: KeptValues(name: "burger_map_profile_counts", following: cache),
            keptViewerMarks: KeptValues(name: "burger_map_viewer_marks", following: cache, capacity: 16_384),
            keptViewerReactions: KeptValues(name: "burger_map_viewer_reactions", following: cache, capacity: 16_384),
            keptProfiles: KeptValues(name: "burger_map_profiles", following: cache, capacity: 16_384), limits: BurgerMapLimits(shared: app.sharedBudgets))
    }
}

extension Application {
    private struct BurgerMapEnvironmentKey: StorageKey { typealias Value = BurgerMapEnvironment }

    package var burgerMapEnvironment: BurgerMapEnvironment {
        get { configured(BurgerMapEnvironmentKey.self) }
        set { storage[BurgerMapEnvironmentKey.self] = newValue }
    }

    /// The map's store on the application's database.
    package var burgerMapStore: BurgerMapStore { BurgerMapStore(database: db, environment: burgerMapEnvironment) }

    // The map's memories, read through its environment.
    package var placeIndex: PlaceIndex { burgerMapEnvironment.placeIndex }
    package var placeVersions: PlaceVersions { burgerMapEnvironment.placeVersions }
    package var burgerMapCache: ResponseCache { burgerMapEnvironment.cache }
    var keptPlaceDetails: KeptValues<PlaceDetail> { burgerMapEnvironment.keptPlaceDetails }
    var keptReviewCards: KeptValues<ReviewCard> { burgerMapEnvironment.keptReviewCards }
    var keptProfileCounts: KeptValues<MapProfileCounts> { burgerMapEnvironment.keptProfileCounts }
    var burgerMapLimits: BurgerMapLimits { burgerMapEnvironment.limits }
}

/// Whether a reader likes and bookmarked one review (`keptViewerReactions`).
struct ViewerReactions: Sendable {
    let liked: Bool
    let bookmarked: Bool
}
