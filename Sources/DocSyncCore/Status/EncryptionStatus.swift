/// Where a daemon's account stands with end-to-end encryption (SPEC §13), as `docs-status`
/// and `docs-status encryption` show it.
public struct EncryptionStatus: Codable, Sendable, Hashable {
    public enum State: String, Codable, Sendable, Hashable {
        /// The account is not encrypted.
        case off
        /// The account is encrypted and this device holds its keys.
        case on
        /// The account is encrypted and this device waits for approval (or the recovery
        /// key): it uploads nothing; `wait` exits 5.
        case awaitingApproval = "awaiting approval"
        /// The server showed keys this device cannot trust, or the keys are gone: nothing
        /// is decrypted, uploaded or deleted; `wait` exits 5.
        case cannotDecrypt = "cannot be decrypted"
        /// Not known yet: the server has not answered since the daemon started, and this
        /// device never saw the account before. Folders wait; nothing is uploaded.
        case unknown
    }

    public var state: State
    /// While awaiting approval: the code to compare with the one the trusted device shows.
    public var approvalCode: String?
    /// What to do, or why.
    public var message: String?
    /// Shown once, in the answer that made it (`enable`, `recovery-key --new`).
    public var recoveryKey: String?
    /// The account's devices as a trusted device sees them (`docs-status devices`).
    public var devices: [DeviceEntry]?
    /// The account's folders not started, each "PATH: why".
    public var waitingFolders: [String]?
    /// The account's folders that sync plain (they did before it was encrypted), "PATH: why".
    public var plainFolders: [String]?

    public init(state: State, approvalCode: String? = nil, message: String? = nil, recoveryKey: String? = nil, devices: [DeviceEntry]? = nil) {
        self.state = state
        self.approvalCode = approvalCode
        self.message = message
        self.recoveryKey = recoveryKey
        self.devices = devices
    }

    /// Whether folders cannot settle until a person acts (approval, recovery key).
    public var waitsForAPerson: Bool { state == .awaitingApproval || state == .cannotDecrypt }

    /// Whether some folder has not started (so the daemon cannot be settled).
    public var holdsFolders: Bool { !(waitingFolders ?? []).isEmpty }
}

/// One device of an encrypted account, as a trusted device lists it.
public struct DeviceEntry: Codable, Sendable, Hashable {
    /// Its name (as it announced it, sealed for the account).
    public var name: String
    /// Its id in the key directory.
    public var id: String
    /// Approved (it holds the account keys) or waiting.
    public var trusted: Bool
    /// This device.
    public var isThisDevice: Bool
    /// The code to compare with the one the device shows before approving it.
    public var approvalCode: String

    public init(name: String, id: String, trusted: Bool, isThisDevice: Bool, approvalCode: String) {
        self.name = name
        self.id = id
        self.trusted = trusted
        self.isThisDevice = isThisDevice
        self.approvalCode = approvalCode
    }
}
