import DocSyncCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads spans of a file past the page cache (`O_DIRECT`) into pooled buffers, for large
/// reads of files that were themselves written past it: the embedded backend's packs.
///
/// Why: on the machines measured, copying a pack's bytes out of page-cache pages that had
/// just been filled cost about 2 ms of CPU per MB (17 % of a receiver's CPU during an
/// initial sync); a direct read lands in a buffer the process already uses.
///
/// What a caller may rely on: `read` answers exactly the bytes asked for, or `nil` when they
/// cannot be read in full this way (the caller then reads through the page cache). The
/// descriptor is opened at `init` and closed when the reader goes away; `isOpen` is false
/// where the file system refuses direct I/O.
public final class DirectFileReader {
    /// Reads shorter than this go through the page cache: a direct read waits for the disk.
    public static let minimumLength = 64 << 10

    private let fd: Int32

    public init(path: String) {
        fd = DirectFileWriter.directFlag == 0 ? -1 : open(path, O_RDONLY | O_CLOEXEC | DirectFileWriter.directFlag)
    }

    deinit { if fd >= 0 { close(fd) } }

    public var isOpen: Bool { fd >= 0 }

    /// `length` bytes at `offset`, read in whole aligned blocks into a pooled buffer (the
    /// answer is a slice of it), or `nil`.
    public func read(offset: Int64, length: Int) -> Data? {
        guard fd >= 0, length > 0 else { return nil }
        let block = Int64(DirectFileWriter.blockSize)
        let start = offset / block * block
        let head = Int(offset - start)
        let span = (head + length + Int(block) - 1) / Int(block) * Int(block)
        let whole = BufferPool.shared.data(count: span) { FileIO.read(fd, offset: start, into: $0).count }
        guard whole.count >= head + length else { return nil }
        return whole[whole.startIndex + head..<whole.startIndex + head + length]
    }
}
