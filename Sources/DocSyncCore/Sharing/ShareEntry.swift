/// One participant of one shared zone, as the server keeps it: who shares what with whom,
/// with which permission, and where the participation stands. The owner's
/// `docs-status share FOLDER` lists a zone's entries; a participant's `docs-status shares`
/// lists its own.
public struct ShareEntry: Hashable, Codable, Sendable {
    /// The zone's owner and name.
    public var share: ShareName
    /// The participant's account.
    public var participant: String
    public var permission: SharePermission
    public var status: ShareStatus
    /// When the entry last changed (invited, answered, permission, ended).
    public var changed: Timestamp
    /// For a share of an encrypted folder, what a device adds for its person (the server
    /// never stores it): where the keys stand ("fingerprint confirmed", "awaiting
    /// fingerprint…", "encrypted: give OWNER the fingerprint …").
    public var keys: String?
    /// For an offered share of an encrypted folder: the code its participant gives the owner
    /// (`ApprovalCode.ofShare`), once the device read the owner's keys.
    public var fingerprint: String?

    public init(share: ShareName, participant: String, permission: SharePermission, status: ShareStatus, changed: Timestamp) {
        self.share = share
        self.participant = participant
        self.permission = permission
        self.status = status
        self.changed = changed
    }
}
