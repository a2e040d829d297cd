/// Settings given as `docsyncd` flags, applied over the configuration file (or standing
/// alone in the one-folder form). `nil` leaves a setting to the file or the default.
///
/// Paths may be relative (to the current directory) or start with `~`.
public struct ConfigurationOverrides: Sendable, Hashable {
    /// `--device NAME`
    public var device: String?
    /// `--state-dir DIR`
    public var stateDirectory: String?
    /// `--socket PATH`
    public var socketPath: String?
    /// `--backend URL`
    public var backendURL: String?
    /// `--token-file FILE`
    public var tokenFile: String?
    /// `--ca-file FILE`
    public var caFile: String?
    /// `--folder PATH`: sync just this folder, with default settings. Its id is its last
    /// path component made a valid zone name (`ConfigurationLoader.folderID(forPath:)`).
    /// With a configuration file, it replaces the file's `[[folders]]` for this run.
    public var folder: String?
    /// `--mode MODE`, for every folder.
    public var mode: String?
    /// `--conflict POLICY`, for every folder.
    public var conflictPolicy: String?
    /// `--max-file-size SIZE` ("50MB", "512KiB"), for every folder.
    public var maxFileSize: String?
    /// `--keep-versions-days N`, for every folder.
    public var keepVersionsDays: Int?
    /// `--folder-id ID`: the zone name of the `--folder` folder, instead of one made from
    /// its last path component (so `~/Documents` and `~/Docs` can be one zone). Only with `--folder`.
    public var folderID: String?
    /// `--share OWNER/ID`: the `--folder` folder is attached to that share (SPEC §11). Only
    /// with `--folder`, not with `--folder-id`.
    public var share: String?
    /// `--delete-brake-percent N` (0 turns the brake off), for every folder.
    public var deleteBrakePercent: Int?
    /// `--delete-brake-min N`, for every folder.
    public var deleteBrakeMinimum: Int?
    /// `--merge GLOB` (repeated), the `merge` globs of every folder; a single empty
    /// `--merge ''` merges nothing.
    public var merge: [String]?
    /// `--merge-max-size SIZE`, for every folder.
    public var mergeMaxSize: String?
    /// `--cache-max-size SIZE`, for every on-demand folder.
    public var cacheMaxSize: String?
    /// `--fetch-timeout SECONDS`, for every on-demand folder.
    public var fetchTimeoutSeconds: Int?
    /// `--web-listen ADDRESS` (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT` or `off`).
    public var webListen: String?

    public init(
        device: String? = nil, stateDirectory: String? = nil, socketPath: String? = nil,
        backendURL: String? = nil, tokenFile: String? = nil, caFile: String? = nil, folder: String? = nil,
        mode: String? = nil, conflictPolicy: String? = nil, maxFileSize: String? = nil, keepVersionsDays: Int? = nil,
        folderID: String? = nil, deleteBrakePercent: Int? = nil, deleteBrakeMinimum: Int? = nil,
        merge: [String]? = nil, mergeMaxSize: String? = nil, share: String? = nil,
        cacheMaxSize: String? = nil, fetchTimeoutSeconds: Int? = nil
    ) {
        self.cacheMaxSize = cacheMaxSize
        self.fetchTimeoutSeconds = fetchTimeoutSeconds
        self.share = share
        self.merge = merge
        self.mergeMaxSize = mergeMaxSize
        self.folderID = folderID
        self.deleteBrakePercent = deleteBrakePercent
        self.deleteBrakeMinimum = deleteBrakeMinimum
        self.mode = mode
        self.conflictPolicy = conflictPolicy
        self.maxFileSize = maxFileSize
        self.keepVersionsDays = keepVersionsDays
        self.device = device
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
        self.backendURL = backendURL
        self.tokenFile = tokenFile
        self.caFile = caFile
        self.folder = folder
    }
}
