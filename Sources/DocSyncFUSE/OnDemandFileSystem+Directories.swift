import CFuse3
import DocSyncCore
import Foundation
import Glibc

/// Directory listings: opendir, readdir, readdirplus, releasedir.
extension OnDemandFileSystem {
    func opendir(_ request: fuse_req_t?, id: UInt64, info: UnsafeMutablePointer<fuse_file_info>?) {
        guard let info, let path = relative(id) else { return replyError(request, ENOENT) }
        switch listing(of: path) {
        case .success(let entries):
            info.pointee.fh = handles.add(.directory(entries), node: id)
            if fuse_reply_open(request, info) != 0 { _ = handles.remove(info.pointee.fh) }
        case .failure(let error):
            replyError(request, error.code)
        }
    }

    /// The directory at `path` as the mount shows it: `.` and `..`, each placeholder under
    /// its document's name, nothing hidden.
    func listing(of path: String) -> Result<[HandleTable.DirectoryEntry], Errno> {
        guard let stream = Glibc.opendir(absolute(path)) else { return .failure(.current) }
        defer { closedir(stream) }
        var entries: [HandleTable.DirectoryEntry] = [.init(name: ".", type: S_IFDIR, inode: 1), .init(name: "..", type: S_IFDIR, inode: 1)]
        var real = Set<String>(), placeholders: [(name: String, inode: UInt64)] = []
        while let entry = Glibc.readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            if Self.isHidden(name) {
                if entry.pointee.d_type == UInt8(DT_REG), let shown = Self.shownName(ofPlaceholder: name) {
                    placeholders.append((shown, UInt64(entry.pointee.d_ino)))
                }
                continue
            }
            real.insert(name)
            entries.append(.init(name: name, type: mode_t(entry.pointee.d_type) << 12, inode: max(UInt64(entry.pointee.d_ino), 1)))
        }
        for (name, inode) in placeholders where !real.contains(name) { entries.append(.init(name: name, type: S_IFREG, inode: max(inode, 1))) }
        return .success(entries)
    }

    func readdir(_ request: fuse_req_t?, id: UInt64, size: Int, offset: Int64, handle: UInt64, plus: Bool) {
        guard case .directory(let entries)? = handles[handle] else { return replyError(request, EBADF) }
        let directory = relative(id)
        var buffer = [CChar](repeating: 0, count: size)
        var used = 0
        var index = Int(offset)
        while index < entries.count {
            let entry = entries[index]
            let next = off_t(index + 1)
            let fitted: Bool = buffer.withUnsafeMutableBufferPointer { buffer in
                let place = buffer.baseAddress! + used, room = size - used
                guard plus else {
                    var status = stat()
                    status.st_mode = entry.type
                    status.st_ino = ino_t(entry.inode)
                    let needed = fuse_add_direntry(request, place, room, entry.name, &status, next)
                    if needed > room { return false }
                    used += needed
                    return true
                }
                // With attributes: the kernel then holds the entry's id as after a lookup.
                // `.` and `..` and entries gone since the listing are sent without one.
                var parameter = fuse_entry_param()
                var counted: UInt64?
                if entry.name != ".", entry.name != "..", let directory,
                   case .success(let backing) = backingOf(Self.join(directory, entry.name)) {
                    let child = nodes.lookup(id, entry.name, count: 0)
                    parameter = entryParameter(id: child, status: backing.status)
                    counted = child
                } else {
                    parameter.attr.st_mode = entry.type
                    parameter.attr.st_ino = ino_t(entry.inode)
                }
                let needed = fuse_add_direntry_plus(request, place, room, entry.name, &parameter, next)
                if needed > room {
                    if let counted { nodes.forget(counted, 0) }
                    return false
                }
                if let counted { nodes.retain(counted) }
                used += needed
                return true
            }
            guard fitted else { break }
            index += 1
        }
        _ = buffer.withUnsafeBytes { fuse_reply_buf(request, $0.baseAddress, used) }
    }

    func releasedir(_ request: fuse_req_t?, handle: UInt64) {
        _ = handles.remove(handle)
        replyError(request, 0)
    }
}
