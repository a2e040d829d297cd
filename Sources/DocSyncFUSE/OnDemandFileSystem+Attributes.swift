import CFuse3
import DocSyncCore
import Foundation
import Glibc

/// Extended attributes: `user.docsync.status` and `user.docsync.pinned` (SPEC §14) read
/// from the engine, other `user.` attributes kept on the content directory's items; no other
/// namespace (`security.`, `system.`, `trusted.`).
extension OnDemandFileSystem {
    static let statusAttribute = "user.docsync.status"
    static let pinnedAttribute = "user.docsync.pinned"

    /// What `user.docsync.status` says of the item at `path`.
    func syncStatus(of path: String) -> String {
        if case .success(.placeholder) = backingOf(path) {
            // Read through the mount: the parts kept (all of it reads offline, until evicted).
            switch partial.recordName(openedAt: path).map(partial.share(of:)) ?? .none {
            case .none: return "remote"
            case .part: return "partial"
            case .all: return "local"
            }
        }
        // Not in the index yet: a new item the engine has not taken in.
        return (try? RelativePath(validating: path)).flatMap { source.syncState(of: $0) } ?? "uploading"
    }

    func getxattr(_ request: fuse_req_t?, id: UInt64, name: String, size: Int) {
        // Only the `user.` namespace is kept (SELinux labels and ACLs are not): `ls -l` asks
        // every file for both, and is answered without a look at the disk.
        guard name.hasPrefix("user.") else { return replyError(request, ENODATA) }
        guard let path = relative(id) else { return replyError(request, ENOENT) }
        if name == Self.statusAttribute {
            return replyAttribute(request, Array(syncStatus(of: path).utf8), size: size)
        }
        if name == Self.pinnedAttribute {
            let pinned = (try? RelativePath(validating: path)).map(source.isPinned) ?? false
            return replyAttribute(request, Array((pinned ? "1" : "0").utf8), size: size)
        }
        guard case .success(.real) = backingOf(path) else { return replyError(request, ENODATA) }
        var value = [UInt8](repeating: 0, count: max(size, 1))
        let length = lgetxattr(absolute(path), name, &value, size)
        guard length >= 0 else { return replyError(request, errno) }
        if size == 0 { _ = fuse_reply_xattr(request, length); return }
        _ = value.withUnsafeBytes { fuse_reply_buf(request, $0.baseAddress, length) }
    }

    private func replyAttribute(_ request: fuse_req_t?, _ value: [UInt8], size: Int) {
        if size == 0 { _ = fuse_reply_xattr(request, value.count); return }
        guard size >= value.count else { return replyError(request, ERANGE) }
        _ = value.withUnsafeBytes { fuse_reply_buf(request, $0.baseAddress, value.count) }
    }

    func listxattr(_ request: fuse_req_t?, id: UInt64, size: Int) {
        guard let path = relative(id) else { return replyError(request, ENOENT) }
        var names = Array(Self.statusAttribute.utf8) + [0] + Array(Self.pinnedAttribute.utf8) + [0]
        if case .success(.real) = backingOf(path) {
            let length = llistxattr(absolute(path), nil, 0)
            if length > 0 {
                var stored = [CChar](repeating: 0, count: length)
                let got = llistxattr(absolute(path), &stored, length)
                if got > 0 {
                    for stored in stored.prefix(got).split(separator: 0).map({ $0.map { UInt8(bitPattern: $0) } })
                    where stored.starts(with: Array("user.".utf8)) { names += stored + [0] }
                }
            }
        }
        replyAttribute(request, names, size: size)
    }

    func setxattr(_ request: fuse_req_t?, id: UInt64, name: String, value: UnsafePointer<CChar>?, size: Int, flags: Int32) {
        guard !readOnly.load(ordering: .relaxed) else { return replyError(request, EROFS) }
        guard name.hasPrefix("user.") else { return replyError(request, ENOTSUP) }
        guard name != Self.statusAttribute, name != Self.pinnedAttribute else { return replyError(request, EPERM) }
        guard let path = relative(id) else { return replyError(request, ENOENT) }
        guard case .success(.real) = backingOf(path) else { return replyError(request, ENOTSUP) }
        guard lsetxattr(absolute(path), name, value, size, flags) == 0 else { return replyError(request, errno) }
        replyError(request, 0)
    }

    func removexattr(_ request: fuse_req_t?, id: UInt64, name: String) {
        guard !readOnly.load(ordering: .relaxed) else { return replyError(request, EROFS) }
        guard name != Self.statusAttribute, name != Self.pinnedAttribute else { return replyError(request, EPERM) }
        guard let path = relative(id) else { return replyError(request, ENOENT) }
        guard case .success(.real) = backingOf(path) else { return replyError(request, ENODATA) }
        guard lremovexattr(absolute(path), name) == 0 else { return replyError(request, errno) }
        replyError(request, 0)
    }
}
