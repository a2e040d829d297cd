/// Where a participant stands in a share (SPEC §11). A share's entries are never deleted:
/// an entry that ended says how (`declined`, `removed`, `left`, `stopped`), so a device
/// that was offline learns it and detaches its folder instead of taking the absence of
/// the share for something else.
public enum ShareStatus: String, Hashable, Codable, Sendable, CaseIterable {
    /// The owner invited the account; it has not answered yet. It sees nothing of the zone.
    case invited
    /// The account accepted: its devices may attach the share and use it as its permission says.
    case accepted
    /// The account declined the invitation.
    case declined
    /// The owner removed the participant.
    case removed
    /// The participant left (`docs-status leave`).
    case left
    /// The owner stopped sharing the zone with everyone.
    case stopped

    /// Whether the participation is under way (invited or accepted): the owner may change
    /// its permission or remove it.
    public var isOpen: Bool { self == .invited || self == .accepted }

    /// Whether the participation ended for good: a device with the share attached detaches
    /// it, keeping its files on disk, unsynced.
    public var hasEnded: Bool { !isOpen }
}
