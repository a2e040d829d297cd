import DocSyncCore
import Foundation

/// The engine's deletion-safety state (SPEC §4a), kept in the index's `engineState` so that
/// a held folder and held deletions stay held across restarts.
struct SafetyState: Codable, Sendable, Equatable {
    /// The instance the root marker must name (`nil`: none recorded yet).
    var markerInstance: String?
    /// Why the folder is held now, and since when (`nil`: it is not).
    var heldReason: FolderHold.Reason?
    var heldSince: Timestamp?
    /// Local deletions sent since the folder last settled: an `rm -rf` the watcher delivers
    /// in pieces is counted whole.
    var deletionsSentSinceSettled = 0
    /// The brake holds the pending deletions since then (`nil`: it does not).
    var brakeEngagedAt: Timestamp?
    /// A person confirmed the held deletions: send those pending, whatever the brake says,
    /// until the folder settles.
    var deletionsConfirmed = false

    static let key = "safety"

    static func load(_ data: Data?) -> SafetyState {
        guard let data, let state = try? JSONDecoder().decode(SafetyState.self, from: data) else { return SafetyState() }
        return state
    }

    var encoded: Data { (try? JSONEncoder().encode(self)) ?? Data() }
}
