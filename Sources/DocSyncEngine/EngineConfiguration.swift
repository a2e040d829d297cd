import DocSyncCore
import Foundation

/// What one folder's engine needs to know: the folder, its zone, this device, the policies.
public struct EngineConfiguration: Sendable {
    public enum Direction: Sendable, Hashable {
        /// Send local changes and apply remote ones.
        case both
        /// Send only; remote changes are fetched but never applied.
        case sendOnly
        /// Apply only; local changes are kept in the index but never sent.
        case receiveOnly
    }

    public var zone: ZoneID
    /// The synced folder (absolute).
    public var root: URL
    /// This folder's state directory: the index and the version store live here.
    public var stateDirectory: URL
    public var device: String
    public var conflictPolicy: ConflictPolicy
    public var direction: Direction
    /// On-demand folder (SPEC §6): new remote documents arrive as placeholders, downloaded
    /// when asked for.
    public var onDemand: Bool
    /// Larger files stay local with a per-file error.
    public var maxFileSize: Int64
    public var keepVersionsDays: Int
    /// Which files a content conflict is merged line-wise for under keep-both (SPEC §4);
    /// nil merges none.
    public var textMerge: TextMergeRule?
    /// The mass-delete brake (SPEC §4a).
    public var deleteBrake: DeleteBrake
    public var retryPolicy: RetryPolicy
    /// How often to fetch even without a notification (a safety net, not the mechanism).
    public var safetyNetInterval: Duration
    /// How many chunks travel at once.
    public var transferConcurrency: Int
    /// The share this folder is attached to on a participant's device (SPEC §11): the zone
    /// is its owner's, so it is never created or uploaded again here — a zone that does
    /// not answer holds the folder instead. `nil` for a folder of the account's own.
    public var share: ShareName?
    /// An encrypted folder's keys (SPEC §13): what it sends is sealed with them and what it
    /// fetches is opened with them; `zone` is then the folder's opaque zone name. `nil` for
    /// a plain folder.
    public var encryption: FolderKeySource?

    public init(
        zone: ZoneID, root: URL, stateDirectory: URL, device: String, conflictPolicy: ConflictPolicy = .keepBoth,
        direction: Direction = .both, onDemand: Bool = false, maxFileSize: Int64 = 50_000_000, keepVersionsDays: Int = 30,
        textMerge: TextMergeRule? = .standard, deleteBrake: DeleteBrake = DeleteBrake(),
        retryPolicy: RetryPolicy = .standard, safetyNetInterval: Duration = .seconds(300), transferConcurrency: Int = 8
    ) {
        self.deleteBrake = deleteBrake
        self.zone = zone
        self.root = root.standardizedFileURL
        self.stateDirectory = stateDirectory
        self.device = device
        self.conflictPolicy = conflictPolicy
        self.direction = direction
        self.onDemand = onDemand
        self.maxFileSize = maxFileSize
        self.keepVersionsDays = keepVersionsDays
        self.textMerge = textMerge
        self.retryPolicy = retryPolicy
        self.safetyNetInterval = safetyNetInterval
        self.transferConcurrency = transferConcurrency
    }

    public var indexURL: URL { stateDirectory.appendingPathComponent("index.sqlite") }
    public var versionsURL: URL { stateDirectory.appendingPathComponent("versions") }
}
