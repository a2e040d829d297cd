import CFuse3
import DocSyncCore
import DocSyncWatcher
import Foundation
import Glibc

/// Names and attributes: lookup, getattr, setattr, mkdir, mknod, unlink, rmdir, symlink,
/// readlink, rename, link, statfs.
extension OnDemandFileSystem {
    func lookup(_ request: fuse_req_t?, parent: UInt64, name: String) {
        guard !Self.isHidden(name), let directory = relative(parent) else { return replyError(request, ENOENT) }
        switch backingOf(Self.join(directory, name)) {
        case .success(let backing): replyEntry(request, parent: parent, name: name, status: backing.status)
        case .failure(let error): replyError(request, error.code)
        }
    }

    func getattr(_ request: fuse_req_t?, id: UInt64, handle: UInt64?) {
        if let handle, case .file(let descriptor, _)? = handles[handle] {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { return replyError(request, errno) }
            return replyAttributes(request, id: id, status: status)
        }
        guard let path = relative(id) else {
            // Replaced or removed while open: the node is what its open files opened.
            switch handles.openFile(on: id) {
            case (.file(let descriptor, _), _)?:
                var status = stat()
                guard fstat(descriptor, &status) == 0 else { return replyError(request, errno) }
                return replyAttributes(request, id: id, status: status)
            case (_, let shown)?: return replyAttributes(request, id: id, status: shown)
            case nil: return replyError(request, ENOENT)
            }
        }
        switch backingOf(path) {
        case .success(let backing): replyAttributes(request, id: id, status: backing.status)
        case .failure(let error): replyError(request, error.code)
        }
    }

    func setattr(_ request: fuse_req_t?, id: UInt64, attributes: stat, toSet: Int32, handle: UInt64?) {
        guard !readOnly.load(ordering: .relaxed) else { return replyError(request, EROFS) }
        guard let path = relative(id) else { return replyError(request, ENOENT) }
        // A document that is not local is made local before any of its attributes change.
        if case .success(.placeholder) = backingOf(path), let relativePath = try? RelativePath(validating: path) {
            let once = ReplyOnce(request)
            once.failAfter(fetchTimeout * 4)
            Task {
                do throws(SyncError) {
                    self.notes.flushNow()
                    try await self.source.makeLocal(relativePath)
                    once.answer { request in self.applyAttributes(request, id: id, path: path, attributes: attributes, toSet: toSet, handle: handle) }
                } catch {
                    self.logger.warning("could not make a file local to change it", metadata: ["path": "\(path)", "error": "\(error.message)"])
                    once.fail(EIO)
                }
            }
            return
        }
        applyAttributes(request, id: id, path: path, attributes: attributes, toSet: toSet, handle: handle)
    }

    private func applyAttributes(_ request: fuse_req_t?, id: UInt64, path: String, attributes: stat, toSet: Int32, handle: UInt64?) {
        let target = absolute(path)
        var descriptor: Int32?
        if let handle, case .file(let open, _)? = handles[handle] { descriptor = open }
        if toSet & FUSE_SET_ATTR_MODE != 0 {
            let result = descriptor.map { fchmod($0, attributes.st_mode & 0o7777) } ?? chmod(target, attributes.st_mode & 0o7777)
            guard result == 0 else { return replyError(request, errno) }
        }
        if toSet & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID) != 0 {
            let uid = toSet & FUSE_SET_ATTR_UID != 0 ? attributes.st_uid : uid_t.max
            let gid = toSet & FUSE_SET_ATTR_GID != 0 ? attributes.st_gid : gid_t.max
            guard lchown(target, uid, gid) == 0 else { return replyError(request, errno) }
        }
        if toSet & FUSE_SET_ATTR_SIZE != 0 {
            let result = descriptor.map { ftruncate($0, attributes.st_size) } ?? truncate(target, attributes.st_size)
            guard result == 0 else { return replyError(request, errno) }
        }
        if toSet & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_MTIME_NOW) != 0 {
            var times = [timespec(tv_sec: 0, tv_nsec: docsync_utime_omit), timespec(tv_sec: 0, tv_nsec: docsync_utime_omit)]
            if toSet & FUSE_SET_ATTR_ATIME_NOW != 0 { times[0].tv_nsec = docsync_utime_now } else if toSet & FUSE_SET_ATTR_ATIME != 0 { times[0] = attributes.st_atim }
            if toSet & FUSE_SET_ATTR_MTIME_NOW != 0 { times[1].tv_nsec = docsync_utime_now } else if toSet & FUSE_SET_ATTR_MTIME != 0 { times[1] = attributes.st_mtim }
            let result = descriptor.map { futimens($0, times) } ?? utimensat(AT_FDCWD, target, times, AT_SYMLINK_NOFOLLOW)
            guard result == 0 else { return replyError(request, errno) }
        }
        var status = stat()
        let result = descriptor.map { fstat($0, &status) } ?? lstat(target, &status)
        guard result == 0 else { return replyError(request, errno) }
        if toSet & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW) != 0 { note([.changed(path)]) }
        replyAttributes(request, id: id, status: status)
    }

    func mkdir(_ request: fuse_req_t?, parent: UInt64, name: String, mode: mode_t) {
        guard let path = writablePath(request, parent: parent, name: name) else { return }
        guard Glibc.mkdir(absolute(path), mode) == 0 else { return replyError(request, errno) }
        var status = stat()
        guard lstat(absolute(path), &status) == 0 else { return replyError(request, errno) }
        note([.directoryAppeared(path)])
        replyEntry(request, parent: parent, name: name, status: status)
    }

    func mknod(_ request: fuse_req_t?, parent: UInt64, name: String, mode: mode_t) {
        guard mode & S_IFMT == S_IFREG else { return replyError(request, EPERM) }
        guard let path = writablePath(request, parent: parent, name: name) else { return }
        let descriptor = Glibc.open(absolute(path), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode & 0o7777)
        guard descriptor >= 0 else { return replyError(request, errno) }
        var status = stat()
        let result = fstat(descriptor, &status)
        Glibc.close(descriptor)
        guard result == 0 else { return replyError(request, errno) }
        note([.changed(path)])
        replyEntry(request, parent: parent, name: name, status: status)
    }

    func symlink(_ request: fuse_req_t?, target: String, parent: UInt64, name: String) {
        guard let path = writablePath(request, parent: parent, name: name) else { return }
        guard Glibc.symlink(target, absolute(path)) == 0 else { return replyError(request, errno) }
        var status = stat()
        guard lstat(absolute(path), &status) == 0 else { return replyError(request, errno) }
        note([.changed(path)])
        replyEntry(request, parent: parent, name: name, status: status)
    }

    func readlink(_ request: fuse_req_t?, id: UInt64) {
        guard let path = relative(id) else { return replyError(request, ENOENT) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = Glibc.readlink(absolute(path), &buffer, buffer.count - 1)
        guard length >= 0 else { return replyError(request, errno) }
        buffer[length] = 0
        fuse_reply_readlink(request, buffer)
    }

    func unlink(_ request: fuse_req_t?, parent: UInt64, name: String) {
        guard let path = writablePath(request, parent: parent, name: name) else { return }
        let target: String
        switch backingOf(path) {
        case .success(.real): target = absolute(path)
        case .success(.placeholder): target = placeholderPath(of: path)
        case .failure(let error): return replyError(request, error.code)
        }
        guard Glibc.unlink(target) == 0 else { return replyError(request, errno) }
        nodes.remove(parent, name)
        note([.removed(path)])
        replyError(request, 0)
    }

    func rmdir(_ request: fuse_req_t?, parent: UInt64, name: String) {
        guard let path = writablePath(request, parent: parent, name: name) else { return }
        guard Glibc.rmdir(absolute(path)) == 0 else { return replyError(request, errno) }
        nodes.remove(parent, name)
        note([.removed(path)])
        replyError(request, 0)
    }

    func rename(_ request: fuse_req_t?, parent: UInt64, name: String, newParent: UInt64, newName: String, flags: UInt32) {
        guard let from = writablePath(request, parent: parent, name: name),
              let to = writablePath(request, parent: newParent, name: newName) else { return }
        let source: String
        switch backingOf(from) {
        case .success(.real): source = absolute(from)
        // A document that is not local moves as its placeholder: nothing is downloaded.
        case .success(.placeholder): source = placeholderPath(of: from)
        case .failure(let error): return replyError(request, error.code)
        }
        let isPlaceholder = source != absolute(from)
        let target = isPlaceholder ? placeholderPath(of: to) : absolute(to)
        if flags & docsync_rename_exchange == 0 {
            // What the new name replaces, whichever way it is stored, goes: one item per name.
            let replaced: String? = switch backingOf(to) {
            case .success(.real) where isPlaceholder: absolute(to)
            case .success(.placeholder) where !isPlaceholder: placeholderPath(of: to)
            default: nil
            }
            if let replaced {
                if flags & docsync_rename_noreplace != 0 { return replyError(request, EEXIST) }
                var status = stat()
                if lstat(replaced, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { return replyError(request, EISDIR) }
                guard Glibc.unlink(replaced) == 0 else { return replyError(request, errno) }
            }
        } else if case .success(let other) = backingOf(to), case .placeholder = other, !isPlaceholder {
            return replyError(request, EINVAL)
        }
        guard docsync_renameat2(source, target, flags) == 0 else { return replyError(request, errno) }
        if flags & docsync_rename_exchange != 0 {
            nodes.exchange(parent, name, with: newParent, newName)
            note([.changed(from), .changed(to)])
        } else {
            nodes.rename(parent, name, to: newParent, newName)
            note([.moved(from: from, to: to)])
        }
        replyError(request, 0)
    }

    func statfs(_ request: fuse_req_t?) {
        var status = statvfs()
        guard docsync_statvfs(backing, &status) == 0 else { return replyError(request, errno) }
        fuse_reply_statfs(request, &status)
    }

    /// The relative path of `name` in `parent` for a change, or nil after replying the errno
    /// that refuses it: a read-only share, a forgotten parent, a name the mount hides.
    func writablePath(_ request: fuse_req_t?, parent: UInt64, name: String) -> String? {
        if readOnly.load(ordering: .relaxed) {
            replyError(request, EROFS)
            return nil
        }
        guard let directory = relative(parent) else {
            replyError(request, ENOENT)
            return nil
        }
        guard !Self.isHidden(name) else {
            replyError(request, EINVAL)
            return nil
        }
        return Self.join(directory, name)
    }
}
