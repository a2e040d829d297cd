import CInotifyTools
import Foundation

/// One `struct inotify_event` as the kernel wrote it, copied out of the read buffer.
///
/// A caller may rely on: `name` holds the name's bytes without the NUL padding (empty for
/// events on the watched directory itself and for `IN_Q_OVERFLOW`); nothing is decoded or
/// validated here.
struct KernelEvent: Sendable, Equatable {
    var wd: Int32
    var mask: UInt32
    var cookie: UInt32
    var name: [UInt8]

    func has(_ bit: Int32) -> Bool { mask & UInt32(bitPattern: bit) != 0 }

    /// Reads everything queued on non-blocking inotify descriptor `fd`, up to `limit` bytes,
    /// and parses it. Returns the events and the errno that ended reading (EAGAIN when the
    /// queue is empty).
    static func readAll(from fd: Int32, into buffer: inout [UInt8], limit: Int = 4 << 20) -> (events: [KernelEvent], errno: Int32) {
        var events: [KernelEvent] = []
        var total = 0
        while total < limit {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                return (events, code)
            }
            if count == 0 { return (events, EAGAIN) }
            total += count
            events.append(contentsOf: parse(buffer[..<count]))
        }
        return (events, 0)
    }

    /// Parses whole events from `bytes` (the kernel never splits an event across reads).
    static func parse(_ bytes: ArraySlice<UInt8>) -> [KernelEvent] {
        let header = Int(docsync_inotify_event_header_size)
        var events: [KernelEvent] = []
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + header <= raw.count {
                let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let cookie = raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameStart = offset + header
                let nameEnd = min(nameStart + length, raw.count)
                var name = Array(raw[nameStart..<nameEnd])
                if let nul = name.firstIndex(of: 0) { name.removeSubrange(nul...) }
                events.append(KernelEvent(wd: wd, mask: mask, cookie: cookie, name: name))
                offset = nameStart + length
            }
        }
        return events
    }
}
