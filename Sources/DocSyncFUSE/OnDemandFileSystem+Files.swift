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
        case .success(.real): openReal(request, path: path, info: info)
        case .success(.placeholder):
            guard let relativePath = try? RelativePath(validating: path) else { return replyError(request, EINVAL) }
            let pending = PendingRequest(raw: request), flagsValue = flags
            Task {
                if writes || flagsValue & O_ACCMODE != O_RDONLY {
                    // Written to: the whole document is made local first.
                    do throws(SyncError) {
                        try await self.source.makeLocal(relativePath)
                    } catch {
                        self.logger.warning("could not make a file local to write it", metadata: ["path": "\(path)", "error": "\(error.message)"])
                        return self.replyError(pending.raw, EIO)
                    }
                    var reopened = fuse_file_info()
                    reopened.flags = flagsValue
                    self.openReal(pending.raw, path: path, info: &reopened)
                    return
                }
                do throws(SyncError) {
                    let layout = try await self.source.remoteLayout(of: relativePath)
                    let file = try self.partial.file(for: layout)
                    self.partial.noteOpened(layout.recordName, at: path)
                    var opened = fuse_file_info()
                    opened.flags = flagsValue
                    opened.fh = self.handles.add(.remote(file))
                    docsync_fuse_file_keep_cache(&opened, 1)
                    if fuse_reply_open(pending.raw, &opened) != 0 { _ = self.handles.remove(opened.fh) }
                } catch {
                    if error.code == .invalidArguments {
                        // Made local meanwhile: read the file.
                        var reopened = fuse_file_info()
                        reopened.flags = flagsValue
                        return self.openReal(pending.raw, path: path, info: &reopened)
                    }
                    self.logger.warning("could not open a file that is not local", metadata: ["path": "\(path)", "error": "\(error.message)"])
                    self.replyError(pending.raw, EIO)
                }
            }
        }
    }

    /// Opens the content directory's file at `path` with the request's flags and replies.
    private func openReal(_ request: fuse_req_t?, path: String, info: UnsafeMutablePointer<fuse_file_info>) {
        let flags = info.pointee.flags & ~(O_CREAT | O_EXCL | O_NOCTTY) | O_CLOEXEC
        let descriptor = Glibc.open(absolute(path), flags)
        guard descriptor >= 0 else { return replyError(request, errno) }
        // Emptied by the open: a change, told to the engine once the file is closed (as a
        // watcher sees a file settle), not while it is being written.
        info.pointee.fh = handles.add(.file(descriptor: descriptor, written: info.pointee.flags & O_TRUNC != 0))
        docsync_fuse_file_keep_cache(info, 1)
        if fuse_reply_open(request, info) != 0 { release(handle: info.pointee.fh, path: nil) }
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
        info.pointee.fh = handles.add(.file(descriptor: descriptor, written: true))
        docsync_fuse_file_keep_cache(info, 1)
        var entry = entryParameter(id: nodes.lookup(parent, name), status: status)
        if fuse_reply_create(request, &entry, info) != 0 {
            nodes.forget(entry.ino, 1)
            release(handle: info.pointee.fh, path: nil)
        }
    }

    func read(_ request: fuse_req_t?, size: Int, offset: Int64, handle: UInt64) {
        switch handles[handle] {
        case .file(let descriptor, _)?:
            var buffer = [UInt8](repeating: 0, count: size)
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, size, off_t(offset)) }
            guard got >= 0 else { return replyError(request, errno) }
            _ = buffer.withUnsafeBytes { fuse_reply_buf(request, $0.baseAddress, got) }
        case .remote(let file)?:
            let pending = PendingRequest(raw: request)
            Task {
                do throws(SyncError) {
                    let data = try await file.read(offset: offset, size: size, readAhead: self.partial.readAhead, from: self.source)
                    _ = data.withUnsafeBytes { fuse_reply_buf(pending.raw, $0.baseAddress, $0.count) }
                } catch {
                    self.logger.warning("could not read a file that is not local", metadata: ["file": "\(file.layout.recordName)", "error": "\(error.message)"])
                    self.replyError(pending.raw, EIO)
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
