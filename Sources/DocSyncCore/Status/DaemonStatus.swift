/// The daemon's whole state, as the overview of `docs-status` shows it.
public struct DaemonStatus: Codable, Sendable, Hashable {
    /// This device's name (shown in conflict copies).
    public var device: String
    /// The backend URL.
    public var backend: String
    /// "signed in", or what is wrong with the account ("not authenticated").
    public var account: String
    public var folders: [FolderStatus]
    /// The fingerprint of this device's key (SPEC §13: what a person compares on two devices
    /// before approving one from the other); absent from a daemon that has none.
    public var deviceKeyFingerprint: String?
    /// The account's end-to-end encryption (SPEC §13); absent from a daemon that knows none.
    public var encryption: EncryptionStatus?
    /// The bandwidth limits in bytes per second (SPEC §15), absent when there is none.
    public var uploadLimit: Int64?
    public var downloadLimit: Int64?
    /// The status page (SPEC §15); absent from a daemon that has none.
    public var web: WebPageStatus?

    public init(device: String, backend: String, account: String, folders: [FolderStatus], deviceKeyFingerprint: String? = nil) {
        self.deviceKeyFingerprint = deviceKeyFingerprint
        self.device = device
        self.backend = backend
        self.account = account
        self.folders = folders
    }

    /// True when every folder is idle with nothing pending.
    public var isSettled: Bool {
        folders.allSatisfy(\.isSettled) && !(encryption.map { $0.waitsForAPerson || $0.holdsFolders } ?? false)
    }
}
