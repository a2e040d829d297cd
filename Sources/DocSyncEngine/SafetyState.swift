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
    /// Local deletions a person asked for by name since the folder last settled (conflict
    /// copies `docs-status resolve` dropped): the brake does not count them.
    var deletionsAskedFor = 0
    /// A shared folder whose zone stopped answering (`zoneNotFound`) since then: held until
    /// it answers again (SPEC §11; `nil`: it answers).
    var shareUnavailableSince: Timestamp?
    /// How the share of this shared folder ended (`removed`, `left`, `declined`,
    /// `stopped`), once its list said so: the folder is detached for good, its files kept.
    var shareEnded: ShareStatus?
    /// The folder's place in a share as last learned from the server (`nil`: shared with
    /// nobody, or not known yet): a read-only participant's changes stay here (SPEC §11).
    var sharing: SharedFolderFacts?

    static let key = "safety"

    init() {}

    /// Reads what any version wrote: a field a later version added is absent from an older
    /// state and takes its initial value (the rest must not be lost with it).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        markerInstance = try container.decodeIfPresent(String.self, forKey: .markerInstance)
        heldReason = try container.decodeIfPresent(FolderHold.Reason.self, forKey: .heldReason)
        heldSince = try container.decodeIfPresent(Timestamp.self, forKey: .heldSince)
        deletionsSentSinceSettled = try container.decodeIfPresent(Int.self, forKey: .deletionsSentSinceSettled) ?? 0
        brakeEngagedAt = try container.decodeIfPresent(Timestamp.self, forKey: .brakeEngagedAt)
        deletionsConfirmed = try container.decodeIfPresent(Bool.self, forKey: .deletionsConfirmed) ?? false
        deletionsAskedFor = try container.decodeIfPresent(Int.self, forKey: .deletionsAskedFor) ?? 0
        shareUnavailableSince = try container.decodeIfPresent(Timestamp.self, forKey: .shareUnavailableSince)
        shareEnded = try container.decodeIfPresent(ShareStatus.self, forKey: .shareEnded)
        sharing = try container.decodeIfPresent(SharedFolderFacts.self, forKey: .sharing)
    }

    static func load(_ data: Data?) -> SafetyState {
        guard let data, let state = try? JSONDecoder().decode(SafetyState.self, from: data) else { return SafetyState() }
        return state
    }

    var encoded: Data { (try? JSONEncoder().encode(self)) ?? Data() }
}
