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
    public static func read(_ fd: Int32, offset: Int64, length: Int) -> Data? {
        var data = Data(count: length)
        let complete = data.withUnsafeMutableBytes { raw -> Bool in
            var done = 0
            while done < length {
                let got = pread(fd, raw.baseAddress! + done, length - done, off_t(offset) + off_t(done))
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { return false }
                done += got
            }
            return true
        }
        return complete ? data : nil
    }
}
