import Foundation

/// What a folder holds back until a person decides (SPEC §4a): the whole folder, because its
/// root looks missing or replaced, or the deletions the mass-delete brake stopped.
public struct HeldDeletions: Codable, Sendable, Hashable {
    /// Why: a `FolderHold.Reason` (`rootMissing`, `rootNotADirectory`, `markerMissing`,
    /// `markerForeign`), `shareUnavailable`, `awaitingApproval` or `cannotDecrypt` for a held
    /// folder, or `brake`.
    public var reason: String
    /// For a person: what happened, what is at stake, what to do.
    public var message: String
    /// Since when.
    public var since: Date
    /// A held folder: the synced items at stake. The brake: the deletions held.
    public var items: Int
    /// The brake: the folder's items the deletions are counted against (0 for a held folder).
    public var ofItems: Int

    public static let brake = "brake"
    /// A shared folder whose zone does not answer (SPEC §11).
    public static let shareUnavailable = "shareUnavailable"
    /// An encrypted folder on a device not trusted yet (SPEC §13).
    public static let awaitingApproval = "awaitingApproval"
    /// An encrypted folder whose keys this device does not hold (SPEC §13).
    public static let cannotDecrypt = "cannotDecrypt"

    public init(reason: String, message: String, since: Date, items: Int, ofItems: Int = 0) {
        self.reason = reason
        self.message = message
        self.since = since
        self.items = items
        self.ofItems = ofItems
    }

    /// True when the whole folder is held (not only deletions).
    public var isFolderHeld: Bool { reason != HeldDeletions.brake }
}

/// One item a folder holds back (`docs-status deletions`).
public struct HeldItem: Codable, Sendable, Hashable {
    public var folder: String
    public var path: String
    public var kind: String
    public var size: Int64

    public init(folder: String, path: String, kind: String, size: Int64) {
        self.folder = folder
        self.path = path
        self.kind = kind
        self.size = size
    }
}

/// One folder's answer to `docs-status deletions`: what it holds back, and the items.
public struct HeldFolder: Codable, Sendable, Hashable {
    public var folder: String
    public var path: String
    /// `nil`: nothing is held.
    public var held: HeldDeletions?
    /// The held items, at most `HeldFolder.listedItems` of them, by path.
    public var items: [HeldItem]
    /// How many items are held in all.
    public var total: Int

    /// The most items one answer lists.
    public static let listedItems = 10_000

    public init(folder: String, path: String, held: HeldDeletions?, items: [HeldItem], total: Int) {
        self.folder = folder
        self.path = path
        self.held = held
        self.items = items
        self.total = total
    }
}
