import DocSyncCore
import Foundation

/// How long a store keeps what it keeps (SPEC §4a), the same for every store: deleted
/// records and replaced versions for `settings.deletedRetention`, tombstones for
/// `tombstoneRetention`, a chunk nothing references for `settings.collectionGrace` after it
/// was stored. Each rule is a cutoff: what is older than it has expired.
public struct StoreRetention: Sendable, Hashable {
    public var settings: StoreSettings
    /// How long tombstones are kept: a device that did not fetch for longer gets
    /// `changeTokenExpired` and fetches everything.
    public var tombstoneRetention: TimeInterval

    /// Tombstones are kept 90 days unless a store says otherwise.
    public static let defaultTombstoneRetention: TimeInterval = 90 * 86_400

    public init(settings: StoreSettings, tombstoneRetention: TimeInterval = defaultTombstoneRetention) {
        self.settings = settings
        self.tombstoneRetention = tombstoneRetention
    }

    /// Deleted records and replaced versions stamped at or before this have expired: they
    /// are never listed or recovered, and a collection removes them.
    public func versionCutoff(now: Timestamp) -> Timestamp { now.subtracting(seconds: settings.deletedRetention) }

    /// Whether something deleted or replaced at `time` is still kept at `now`.
    public func keepsVersion(stampedAt time: Timestamp, now: Timestamp) -> Bool { time > versionCutoff(now: now) }

    /// Tombstones of deletions at or before this are compacted away (and the tokens that
    /// could have missed them expire).
    public func tombstoneCutoff(now: Timestamp) -> Timestamp { now.subtracting(seconds: tombstoneRetention) }

    /// A chunk stored (or stored again) at or before this, that nothing keeps, may be swept.
    public func graceCutoff(now: Timestamp) -> Timestamp { now.subtracting(seconds: settings.collectionGrace) }
}

extension Timestamp {
    /// This time plus `seconds`, saturating as `subtracting(seconds:)` does.
    public func adding(seconds: TimeInterval) -> Timestamp { subtracting(seconds: -seconds) }

    /// This time less `seconds` (saturating: an age too large for the clock gives the
    /// earliest time, a negative one a later time).
    public func subtracting(seconds: TimeInterval) -> Timestamp {
        let nanoseconds = seconds * 1e9
        guard nanoseconds.magnitude < 9e18 else { return Timestamp(nanosecondsSince1970: nanoseconds > 0 ? .min : .max) }
        let (value, overflow) = nanosecondsSince1970.subtractingReportingOverflow(Int64(nanoseconds.rounded()))
        return overflow ? Timestamp(nanosecondsSince1970: nanoseconds > 0 ? .min : .max) : Timestamp(nanosecondsSince1970: value)
    }
}
