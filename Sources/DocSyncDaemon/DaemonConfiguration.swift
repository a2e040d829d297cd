import DocSyncCore
import Foundation

/// Everything `docsyncd` needs to run, after the TOML file, defaults and flags are combined.
///
/// Paths are absolute with `~` expanded. See SPEC §10 and `config/docsync.example.toml`.
public struct DaemonConfiguration: Sendable, Hashable {
    /// Shown in conflict copies and status. Default: the host name.
    public var device: String
    /// Index, engine state, version store. Default: `$XDG_STATE_HOME/docsync` (`~/.local/state/docsync`).
    public var stateDirectory: URL
    /// The control socket. Default: `$XDG_RUNTIME_DIR/docsync/control.sock`.
    public var socketPath: URL
    public var backend: BackendConfiguration
    public var folders: [FolderConfiguration]
    /// `notifications`: desktop notifications on the session bus for what needs a person
    /// (SPEC §15). Default true.
    public var notifications = true
    /// `upload_limit` and `download_limit`: chunk transfers to and from a docsync-server, in
    /// bytes per second (SPEC §15); 0 for none (the default).
    public var uploadLimit: Int64 = 0
    public var downloadLimit: Int64 = 0
    /// `web_listen`: where the status page and `/metrics` listen (SPEC §15), loopback only.
    /// Default `127.0.0.1:8385`.
    public var webListen = WebListen.standard

    public init(device: String, stateDirectory: URL, socketPath: URL, backend: BackendConfiguration, folders: [FolderConfiguration]) {
        self.device = device
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
        self.backend = backend
        self.folders = folders
    }
}

/// Where the records and chunks live.
public struct BackendConfiguration: Sendable, Hashable {
    /// `file:///path` (embedded local backend) or `http(s)://host:port` (docsync-server).
    public var url: URL
    /// File holding this device's bearer token (HTTP backends only).
    public var tokenFile: URL?
    /// A PEM certificate to trust for an `https://` backend (a self-signed server), beside
    /// the system's authorities.
    public var caFile: URL?

    public init(url: URL, tokenFile: URL? = nil, caFile: URL? = nil) {
        self.url = url
        self.tokenFile = tokenFile
        self.caFile = caFile
    }
}

/// One synced folder (one zone).
public struct FolderConfiguration: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        case mirror, onDemand = "on-demand", sendOnly = "send-only", receiveOnly = "receive-only"
    }

    /// The folder's name on this device (state directory, status): the zone name of a
    /// folder of the account's own (a valid `ZoneID`), `OWNER/FOLDER-ID` of a share.
    public var id: String
    /// The share this folder is attached to (SPEC §11; `share = "OWNER/ID"`), `nil` for a
    /// folder of the account's own.
    public var share: ShareName?
    /// Absolute path of the folder on this machine.
    public var path: URL
    public var mode: Mode
    public var conflictPolicy: ConflictPolicy
    /// Larger files stay local with a per-file error. Default 50 MB (50,000,000 bytes).
    public var maxFileSize: Int64
    /// How long the version store keeps replaced and deleted content. Default 30.
    public var keepVersionsDays: Int
    /// The mass-delete brake (SPEC §4a): `delete_brake_percent` (50; 0 turns it off) and
    /// `delete_brake_min` (100).
    public var deleteBrake: DeleteBrake
    /// The `merge` globs (SPEC §4): text files edited on both devices are merged line-wise
    /// under keep-both. Default `TextMergeRule.defaultPatterns`; empty merges nothing.
    public var mergePatterns: [String] = TextMergeRule.defaultPatterns
    /// `merge_max_size`: larger files are never merged. Default 1 MB (1,000,000 bytes).
    public var mergeMaxSize: Int64 = TextMergeRule.defaultMaxSize
    /// `cache_max_size` of an on-demand folder (SPEC §14): how much content it keeps local
    /// before the least recently used unpinned files the server holds are evicted. `nil`:
    /// 10 GB or 10 % of the cache's file system, whichever is smaller.
    public var cacheMaxSize: Int64?
    /// `fetch_timeout` of an on-demand folder (SPEC §14): how long a read of content that is
    /// not local waits for the backend before it fails with `EIO`. Default 30 s.
    public var fetchTimeoutSeconds: Int = 30

    /// The zone the folder syncs: its own id's, or the share's (the owner's zone).
    public var zoneName: String { share?.zone.name ?? id }

    public init(
        id: String, path: URL, mode: Mode = .mirror, conflictPolicy: ConflictPolicy = .keepBoth,
        maxFileSize: Int64 = 50_000_000, keepVersionsDays: Int = 30, deleteBrake: DeleteBrake = DeleteBrake()
    ) {
        self.deleteBrake = deleteBrake
        self.id = id
        self.path = path
        self.mode = mode
        self.conflictPolicy = conflictPolicy
        self.maxFileSize = maxFileSize
        self.keepVersionsDays = keepVersionsDays
    }
}
