import DocSyncCore
import Foundation

/// Something that needs a person (SPEC §15), as one snapshot of the folders' statuses shows
/// it: one per situation, however many files it covers.
public struct NotificationSituation: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The backend refused this device's token (the account's, for every folder).
        case signInRefused
        /// The account's quota, or the backend's disk, is full: uploads are paused.
        case storageFull
        /// A folder held as a whole (SPEC §4a: its root missing or replaced; a share that
        /// does not answer; an encrypted folder waiting for keys).
        case folderHeld
        /// Local deletions held by the mass-delete brake (SPEC §4a).
        case deletionsHeld
        /// Conflicts kept as copies beside their items (SPEC §4).
        case conflictCopies
        /// Files over `max_file_size`, kept on this device.
        case fileTooLarge
    }

    public var kind: Kind
    /// The folder's id; `nil` for the account's situations.
    public var folder: String?
    /// What tells two situations of one kind and folder apart: why a folder is held.
    public var detail: String?
    /// The items it covers (conflicts, deletions held, files too large); 0 where none are counted.
    public var count: Int
    public var summary: String
    public var body: String
    public var urgency: DesktopNotification.Urgency

    public init(kind: Kind, folder: String? = nil, detail: String? = nil, count: Int = 0,
                summary: String, body: String, urgency: DesktopNotification.Urgency) {
        self.kind = kind
        self.folder = folder
        self.detail = detail
        self.count = count
        self.summary = summary
        self.body = body
        self.urgency = urgency
    }

    /// Stable while the situation lasts: `kind|folder|detail` (a folder id has no `|`).
    public var key: String {
        [kind.rawValue, folder ?? "", detail ?? ""].joined(separator: "|")
    }

    /// The notification that tells a person of it.
    public func notification(replacesEarlier: Bool = false) -> DesktopNotification {
        DesktopNotification(key: key, summary: summary, body: body, urgency: urgency, replacesEarlier: replacesEarlier)
    }
}
