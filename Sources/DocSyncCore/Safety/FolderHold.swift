/// Whether a folder's root is the directory its index describes (SPEC §4a), decided from
/// what the root looks like now — pure, so every case is a line of a table.
///
/// The root's hidden marker (`IgnoreRules.rootMarkerName`) names the folder instance the
/// index was built on. While the index holds items, a root that is missing, is not a
/// directory, or lacks that marker is *held*: nothing is sent and nothing written, and a
/// missing root is never created. An index without items has nothing at stake: a marker is
/// (re)written and work goes on, or — without a directory to write it in — the folder
/// waits for one.
public enum FolderHold {
    /// What the root is now.
    public enum Root: Hashable, Sendable {
        case missing
        case notADirectory
        /// A directory; `marker` is the instance its marker names (`nil`: no marker, or one
        /// that cannot be read); `isEmpty`: it holds nothing but the marker (looked at only
        /// without a marker: with one, it may be given as false).
        case directory(marker: String?, isEmpty: Bool)
    }

    /// Why a folder is held.
    public enum Reason: String, Hashable, Sendable, Codable {
        case rootMissing, rootNotADirectory, markerMissing, markerForeign

        /// For a person: what happened and what to do.
        public func explanation(root: String, items: Int) -> String {
            let stake = "\(items) synced item\(items == 1 ? "" : "s") kept on the other devices"
            return switch self {
            case .rootMissing:
                "\(root) is missing (an unmounted disk, a moved folder?): nothing is sent or written, \(stake); "
                    + "it resumes by itself when the folder is back, or 'docs-status deletions --confirm' deletes them everywhere"
            case .rootNotADirectory:
                "\(root) is not a directory: nothing is sent or written, \(stake); put the folder back, fix its path, "
                    + "or 'docs-status deletions --confirm' deletes them everywhere"
            case .markerMissing:
                "\(root) is not the folder that was synced (its \(IgnoreRules.rootMarkerName) marker is gone: an empty mount point, a restored empty home?): "
                    + "nothing is sent or written, \(stake); it resumes by itself when the marker is back, or choose with 'docs-status deletions --confirm' or '--restore'"
            case .markerForeign:
                "\(root) is another synced folder than the one indexed (its \(IgnoreRules.rootMarkerName) marker names another folder): "
                    + "nothing is sent or written, \(stake); put the right folder back, or choose with 'docs-status deletions --confirm' or '--restore'"
            }
        }
    }

    public enum Verdict: Hashable, Sendable {
        /// The root is the indexed folder: go on.
        case proceed
        /// Go on after writing a marker naming `instance` (and recording it in the index).
        case writeMarker(instance: String)
        /// Record `instance`, which the marker found names, as this folder's (a new index on a folder synced before).
        case adoptMarker(instance: String)
        /// Nothing at stake, but no directory to sync: wait for one, never create it.
        case waitForRoot
        case held(Reason)
    }

    /// The verdict for a root that is `root` now, when the index recorded `recorded` as its
    /// marker (`nil`: never, an index from before markers, or a new one) and holds
    /// `indexedItems` items. `newInstance` names a marker to write.
    public static func verdict(root: Root, recorded: String?, indexedItems: Int, newInstance: @autoclosure () -> String) -> Verdict {
        switch root {
        case .missing:
            return indexedItems > 0 ? .held(.rootMissing) : .waitForRoot
        case .notADirectory:
            return indexedItems > 0 ? .held(.rootNotADirectory) : .waitForRoot
        case .directory(let marker, let isEmpty):
            if let marker, marker == recorded { return .proceed }
            guard indexedItems > 0 else {
                if let marker { return .adoptMarker(instance: marker) }
                return .writeMarker(instance: recorded ?? newInstance())
            }
            if let marker {
                // A marker of another instance: another folder was put here.
                return recorded == nil ? .adoptMarker(instance: marker) : .held(.markerForeign)
            }
            // No marker while the index holds items. An index from before markers, over a
            // folder with something in it, gets one; an empty one is what an unmounted disk
            // or a restored empty home looks like.
            if recorded == nil, !isEmpty { return .writeMarker(instance: newInstance()) }
            return .held(.markerMissing)
        }
    }
}
