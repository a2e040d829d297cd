import Foundation

/// The embedded store's own settings (SPEC §4a, §10): how long deleted records and replaced
/// versions are kept, how often garbage is collected, and how long a stored chunk that
/// nothing references yet is safe from collection.
///
/// A `LocalBackend` reads them from `store.toml` in its directory (`StoreSettingsFile`);
/// `docsync-server` takes the same keys from its own configuration file and applies them to
/// every user's store.
public struct StoreSettings: Sendable, Hashable {
    /// `deleted_retention`: how long a deleted record stays in Recently Deleted, and a
    /// version a save replaced stays kept, with their chunks. Default 30 days.
    public var deletedRetention: TimeInterval
    /// `gc_interval`: how often a collection runs on its own while the store is open (in a
    /// daemon on `file://`, or in `docsync-server`). 0 turns the schedule off. Default 1 day.
    public var collectionInterval: TimeInterval
    /// `gc_grace`: how long a chunk stays safe after it was stored (or stored again) even
    /// when nothing references it: the time an upload may take between storing its chunks
    /// and saving the records that name them. Default 1 hour: an upload paused longer
    /// than that (a daemon offline between its chunks and its records) finds its chunks
    /// swept, gets `chunkNotFound` and uploads them again; nothing is lost.
    public var collectionGrace: TimeInterval

    public static let defaultDeletedRetention: TimeInterval = 30 * 86_400
    public static let defaultCollectionInterval: TimeInterval = 86_400
    public static let defaultCollectionGrace: TimeInterval = 3_600

    public init(deletedRetention: TimeInterval = defaultDeletedRetention, collectionInterval: TimeInterval = defaultCollectionInterval,
                collectionGrace: TimeInterval = defaultCollectionGrace) {
        self.deletedRetention = deletedRetention
        self.collectionInterval = collectionInterval
        self.collectionGrace = collectionGrace
    }

    /// The keys of `store.toml` (and of docsync-server's file), each a duration.
    public static let keys = ["deleted_retention", "gc_interval", "gc_grace"]

    /// Sets the setting `key` from the duration `text` (see `StoreDuration`). Returns why it
    /// cannot — an unknown key, a value that is not a duration — or `nil` once it is set.
    public mutating func set(_ key: String, to text: String) -> String? {
        guard Self.keys.contains(key) else {
            return "unknown key \(key); the keys are \(Self.keys.joined(separator: ", "))"
        }
        guard let seconds = StoreDuration.parse(text) else {
            return "\(key) = \(text.debugDescription) is not a duration; write a number and a unit, such as \"30d\", \"12h\", \"90m\" or \"45s\""
        }
        switch key {
        case "deleted_retention": deletedRetention = seconds
        case "gc_interval": collectionInterval = seconds
        default: collectionGrace = seconds
        }
        return nil
    }
}
