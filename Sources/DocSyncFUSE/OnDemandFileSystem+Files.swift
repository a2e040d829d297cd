import CFuse3
import DocSyncCore
import DocSyncWatcher
import Foundation
import Glibc

/// Open files: open, create, read, write, flush, release, fsync, fallocate.
extension OnDemandFileSystem {
    func open(_ request: fuse_req_t?, id: UInt64, info: UnsafeMutablePointer<fuse_file_info>?) {
        guard let info, let path = relative(id) else { return replyError(request, ENOENT) }
        let flags = info.pointee.flags
        let writes = flags & O_ACCMODE != O_RDONLY || flags & O_TRUNC != 0
        if writes, readOnly.load(ordering: .relaxed) { return replyError(request, EROFS) }
        switch backingOf(path) {
        case .failure(let error): replyError(request, error.code)
        case .success(.real):
            switch openLocal(path, flags: flags, node: id) {
            case .success(let opened):
                var opened = opened
                if fuse_reply_open(request, &opened) != 0 { release(handle: opened.fh, path: nil) }
            case .failure(let error): replyError(request, error.code)
            }
        case .success(.placeholder(let shown)):
            guard let relativePath = try? RelativePath(validating: path) else { return replyError(request, EINVAL) }
            let once = ReplyOnce(request)
            once.failAfter(writes ? fetchTimeout * 4 : fetchTimeout) { [logger] in
                logger.warning("a file that is not local could not be opened in time; the program gets an I/O error", metadata: ["path": "\(path)"])
            }
            Task {
                let opened = writes ? await self.openMadeLocal(relativePath, path: path, flags: flags, node: id)
                    : await self.openRemote(relativePath, path: path, shown: shown, flags: flags, node: id)
                switch opened {
                case .success(let info):
                    var info = info
                    let replied = once.answer { request in
                        if fuse_reply_open(request, &info) != 0 { self.release(handle: info.fh, path: nil) }
                    }
                    if !replied { self.release(handle: info.fh, path: nil) }
                case .failure(let error):
                    once.fail(error.code)
                }
            }
        }
    }

    /// The content directory's file at `path` opened with `flags`, as the reply's file info.
    private func openLocal(_ path: String, flags: Int32, node: UInt64) -> Result<fuse_file_info, Errno> {
        let descriptor = Glibc.open(absolute(path), flags & ~(O_CREAT | O_EXCL | O_NOCTTY) | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.current) }
        var info = fuse_file_info()
        info.flags = flags
        var status = stat()
        fstat(descriptor, &status)
        // Emptied by the open: a change, told to the engine once the file is closed (as a
        // watcher sees a file settle), not while it is being written.
        info.fh = handles.add(.file(descriptor: descriptor, written: flags & O_TRUNC != 0), node: node, shown: status)
        noteAccess(path)
        docsync_fuse_file_keep_cache(&info, 1)
        return .success(info)
    }

    /// A not-local document opened for writing: made local first, then opened.
    private func openMadeLocal(_ relativePath: RelativePath, path: String, flags: Int32, node: UInt64) async -> Result<fuse_file_info, Errno> {
        do throws(SyncError) {
            notes.flushNow()
            try await source.makeLocal(relativePath)
        } catch {
            logger.warning("could not make a file local to write it", metadata: ["path": "\(path)", "error": "\(error.message)"])
            return .failure(Errno(EIO))
        }
        return openLocal(path, flags: flags, node: node)
    }

    /// A not-local document opened for reading through the partial cache (or the file, when
    /// it became local meanwhile).
    private func openRemote(_ relativePath: RelativePath, path: String, shown: stat, flags: Int32,
                            node: UInt64) async -> Result<fuse_file_info, Errno> {
        let placeholderInode = UInt64(shown.st_ino)
        do throws(SyncError) {
            let layout = try await source.remoteLayout(of: relativePath, placeholderInode: placeholderInode)
            let file = try partial.file(for: layout)
            partial.noteOpened(layout.recordName, at: path)
            var info = fuse_file_info()
            info.flags = flags
            info.fh = handles.add(.remote(file), node: node, shown: shown)
            noteAccess(path)
            docsync_fuse_file_keep_cache(&info, 1)
            return .success(info)
        } catch {
            if error.code == .invalidArguments { return openLocal(path, flags: flags, node: node) }  // made local meanwhile
            logger.warning("could not open a file that is not local", metadata: ["path": "\(path)", "error": "\(error.message)"])
            return .failure(Errno(EIO))
        }
    }

    func create(_ request: fuse_req_t?, parent: UInt64, name: String, mode: mode_t, info: UnsafeMutablePointer<fuse_file_info>?) {
        guard let info, let path = writablePath(request, parent: parent, name: name) else { return }
        if case .success(.placeholder) = backingOf(path), info.pointee.flags & O_EXCL != 0 { return replyError(request, EEXIST) }
        let descriptor = Glibc.open(absolute(path), info.pointee.flags | O_CREAT | O_CLOEXEC, mode & 0o7777)
        guard descriptor >= 0 else { return replyError(request, errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            return replyError(request, code)
        }
        // A new file is news once it is closed (or flushed, or fsynced), with what was written.
        let node = nodes.lookup(parent, name)
        info.pointee.fh = handles.add(.file(descriptor: descriptor, written: true), node: node, shown: status)
        noteAccess(path)
        docsync_fuse_file_keep_cache(info, 1)
        var entry = entryParameter(id: node, status: status)
        if fuse_reply_create(request, &entry, info) != 0 {
            nodes.forget(entry.ino, 1)
            release(handle: info.pointee.fh, path: nil)
        }
    }

    func read(_ request: fuse_req_t?, size: Int, offset: Int64, handle: UInt64) {
        switch handles[handle] {
        case .file(let descriptor, _)?:
            // One copy, into a buffer nobody clears first: the kernel's page cache keeps the
            // rest (`keep_cache`).
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 4096)
            defer { buffer.deallocate() }
            let got = pread(descriptor, buffer, size, off_t(offset))
            guard got >= 0 else { return replyError(request, errno) }
            fuse_reply_buf(request, buffer, got)
        case .remote(let file)?:
            let once = ReplyOnce(request)
            once.failAfter(fetchTimeout) { [logger] in
                logger.warning("content that is not local did not come in time; the program gets an I/O error", metadata: ["record": "\(file.layout.recordName)"])
            }
            Task {
                do throws(SyncError) {
                    let data = try await file.read(offset: offset, size: size, readAhead: self.partial.readAhead, from: self.source)
                    once.answer { request in _ = data.withUnsafeBytes { fuse_reply_buf(request, $0.baseAddress, $0.count) } }
                } catch {
                    self.logger.warning("could not read a file that is not local", metadata: ["record": "\(file.layout.recordName)", "error": "\(error.message)"])
                    once.fail(EIO)
                }
            }
        case .directory?, nil:
            replyError(request, EBADF)
        }
    }

    func write(_ request: fuse_req_t?, bytes: UnsafeRawPointer?, size: Int, offset: Int64, handle: UInt64) {
        guard let descriptor = handles.markWritten(handle) else { return replyError(request, EBADF) }
        let written = pwrite(descriptor, bytes, size, off_t(offset))
        guard written >= 0 else { return replyError(request, errno) }
        fuse_reply_write(request, written)
    }

    func flush(_ request: fuse_req_t?, id: UInt64, handle: UInt64) {
        if handles.takeWritten(handle), let path = relative(id) { note([.changed(path)]) }
        replyError(request, 0)
    }

    func release(_ request: fuse_req_t?, id: UInt64, handle: UInt64) {
        release(handle: handle, path: relative(id))
        replyError(request, 0)
    }

    /// Closes `handle`; a file written through it is handed to the engine as changed at `path`.
    func release(handle: UInt64, path: String?) {
        switch handles.remove(handle) {
        case .file(let descriptor, let written)?:
            Glibc.close(descriptor)
            if written, let path { note([.changed(path)]) }
        case .remote?, .directory?, nil:
            break
        }
    }

    func fsync(_ request: fuse_req_t?, id: UInt64, dataOnly: Bool, handle: UInt64) {
        guard case .file(let descriptor, _)? = handles[handle] else { return replyError(request, 0) }
        guard (dataOnly ? fdatasync(descriptor) : Glibc.fsync(descriptor)) == 0 else { return replyError(request, errno) }
        if handles.takeWritten(handle), let path = relative(id) { note([.changed(path)]) }
        replyError(request, 0)
    }

    func fallocate(_ request: fuse_req_t?, mode: Int32, offset: Int64, length: Int64, handle: UInt64) {
        guard let descriptor = handles.markWritten(handle) else { return replyError(request, EBADF) }
        guard docsync_fallocate(descriptor, mode, off_t(offset), off_t(length)) == 0 else { return replyError(request, errno) }
        replyError(request, 0)
    }
}
