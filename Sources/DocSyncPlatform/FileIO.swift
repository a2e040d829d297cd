import DocSyncCore
import Foundation

/// Whole reads and writes on file descriptors: short transfers and `EINTR` are retried, so a
/// caller sees either everything or a failure.
public enum FileIO {
    /// Writes all of `data` to `fd`; returns 0, or the `errno` that stopped it.
    public static func writeAll(_ fd: Int32, _ data: Data) -> Int32 {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
    }

    /// Exactly `length` bytes of `fd` at `offset`, or `nil` when they cannot be read in full.
    /// A read of `BufferPool.pooledMinimum` bytes or more lands in a pooled buffer.
    public static func read(_ fd: Int32, offset: Int64, length: Int) -> Data? {
        guard length >= BufferPool.pooledMinimum else {
            var data = Data(count: length)
            let got = data.withUnsafeMutableBytes { read(fd, offset: offset, into: $0).count }
            return got == length ? data : nil
        }
        let data = BufferPool.shared.data(count: length) { read(fd, offset: offset, into: $0).count }
        return data.count == length ? data : nil
    }

    /// Fills `buffer` from `fd` at `offset`. Returns how many bytes were read, fewer than
    /// `buffer.count` only at the end of the file or on an error, and the error's `errno`
    /// (0 when the read stopped at the end of the file or filled the buffer).
    public static func read(_ fd: Int32, offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, error: Int32) {
        var done = 0
        while done < buffer.count {
            let got = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return (done, errno) }
            if got == 0 { break }
            done += got
        }
        return (done, 0)
    }

    /// Flushes the whole file system holding `path` (`syncfs`): one call makes every file
    /// written before it durable. Returns false when it failed.
    public static func flushFileSystem(of path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return docsync_syncfs(fd) == 0
    }
}

/// Linux's `syncfs(2)`, which Glibc's Swift module does not export without `_GNU_SOURCE`.
@_silgen_name("syncfs")
private func docsync_syncfs(_ fd: Int32) -> Int32
