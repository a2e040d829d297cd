import DocSyncCore
import DocSyncEngine
import Foundation
import Glibc

/// A folder whose mode changed between `mirror` and `on-demand` since docsyncd last ran it
/// (SPEC §14). Nothing moves over the network: `toOnDemand` renames the folder's files into
/// its content directory (the cache), unpinned; `toMirror` renames them back and then
/// downloads what is not local. Either is refused while files in the folder are open or
/// the space is short, with what to do.
enum FolderModeSwitch: Equatable, Sendable {
    case toOnDemand
    case toMirror

    /// The switch a folder's start implies: `on-demand` with no content directory yet for a
    /// folder synced before, or another mode with a content directory left.
    static func detect(onDemand: Bool, contentExists: Bool, neverSynced: Bool) -> FolderModeSwitch? {
        if onDemand { return !contentExists && !neverSynced ? .toOnDemand : nil }
        return contentExists ? .toMirror : nil
    }

    /// Why the switch cannot happen now (`nil`: it can). `open` lists the processes with a
    /// file of the folder open; the sizes and free bytes are the file systems' own.
    static func refusal(_ change: FolderModeSwitch, root: String, open: [(pid: Int32, name: String)],
                        bytesNeeded: Int64, bytesFree: Int64?, spaceAt: String) -> String? {
        let target = change == .toOnDemand ? "on-demand" : "mirror"
        if !open.isEmpty {
            let list = open.prefix(5).map { "\($0.pid) (\($0.name))" }.joined(separator: ", ") + (open.count > 5 ? ", …" : "")
            return "the folder \(root) cannot become \(target) while files in it are open (processes \(list)); close them, then start docsyncd again"
        }
        if let bytesFree, bytesNeeded > bytesFree {
            let what = change == .toOnDemand ? "moving its files into the cache" : "downloading what is not local"
            return "the folder \(root) cannot become \(target): \(what) needs \(ByteCountFormatter.string(fromByteCount: bytesNeeded, countStyle: .file)) "
                + "and \(spaceAt) has \(ByteCountFormatter.string(fromByteCount: bytesFree, countStyle: .file)) free; free some space, or keep its mode as it was, then start docsyncd again"
        }
        return nil
    }

    /// Checks the switch of the folder at `root` (content directory `content`) against what
    /// the system shows now; throws a `DaemonError` saying why it is refused.
    static func check(_ change: FolderModeSwitch, root: URL, content: URL, engine: FolderEngine) throws {
        let open = (OnDemandMountPoint.processesUsing(root) + OnDemandMountPoint.processesUsing(content)).map { ($0, processName($0)) }
        let sameFileSystem = device(of: root.path) != nil && device(of: root.path) == device(of: content.deletingLastPathComponent().path)
        let needed: Int64, spaceAt: String
        switch change {
        case .toOnDemand:
            needed = sameFileSystem ? 0 : engine.localContentSize()
            spaceAt = "the state directory's file system (\(content.deletingLastPathComponent().path))"
        case .toMirror:
            let missing = engine.notLocalDocuments().reduce(Int64(0)) { $0 + $1.size }
            needed = missing + (sameFileSystem ? 0 : engine.localContentSize())
            spaceAt = "its file system"
        }
        let free = freeBytes(at: change == .toOnDemand ? content.deletingLastPathComponent().path : root.path)
        if let refusal = refusal(change, root: root.path, open: open, bytesNeeded: needed, bytesFree: free, spaceAt: spaceAt) {
            throw DaemonError(refusal)
        }
    }

    /// The marker of a switch to `mirror` whose downloads are not all done yet.
    static func downloadsMarker(in stateDirectory: URL) -> URL { stateDirectory.appendingPathComponent("mirror-downloads-pending") }

    private static func device(of path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_dev) : nil
    }

    private static func freeBytes(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    private static func processName(_ pid: Int32) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
