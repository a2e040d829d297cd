import Foundation

/// The mass-delete brake of SPEC §4a: when local deletions not yet sent reach at least
/// `percent` % of the folder's items and at least `minimum` items — or `absoluteLimit`
/// items whatever the folder's size — they are held until a person confirms them.
public struct DeleteBrake: Hashable, Sendable, Codable {
    /// `delete_brake_percent`: 0 turns the brake off.
    public var percent: Int
    /// `delete_brake_min`.
    public var minimum: Int
    /// So many deletions are held in any folder the brake is on for.
    public static let absoluteLimit = 10_000

    public init(percent: Int = 50, minimum: Int = 100) {
        self.percent = percent
        self.minimum = minimum
    }

    /// Whether the brake holds `deletions` items out of a folder of `items` items (the items
    /// it held when it last settled: the deleted ones count among them).
    public func engages(deletions: Int, items: Int) -> Bool {
        guard percent > 0, deletions > 0 else { return false }
        if deletions >= DeleteBrake.absoluteLimit { return true }
        return deletions >= minimum && deletions * 100 >= percent * max(items, deletions)
    }

    /// For a person: "50 % and 100 items, or 10,000 items".
    public var description: String {
        percent == 0 ? "off" : "\(percent) % and \(minimum) items, or \(DeleteBrake.absoluteLimit.formatted()) items"
    }
}
