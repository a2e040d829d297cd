import DocSyncCore
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Large buffers kept for reuse, so that reading a file or a chunk into memory does not ask
/// the system for fresh pages every time.
///
/// Why: the first touch of a page the process has not used costs a fault and the zeroing of
/// the page. On the virtual machines measured that was 14 % of a sender's CPU during an
/// initial sync (about 60,000 faults for 240 MB read). glibc's allocator gave the buffers
/// of those reads back to the system as soon as they were freed, so every file paid again.
///
/// What a caller may rely on:
/// - `take` returns page-aligned memory of at least the size asked for. Its contents are
///   unspecified. It stays the caller's until it is handed to `giveBack`, exactly once.
/// - `data(count:fill:)` wraps a taken buffer in a `Data`. The buffer comes back to the pool
///   when the last copy of that `Data` (or of a slice of it) goes away.
/// - Idle buffers are kept up to `idleLimit` bytes. Once the pool has gone unused for
///   `quietPeriod`, all of them go back to the system, so an idle daemon holds none.
/// - Safe to use from any thread.
public final class BufferPool: Sendable {
    /// The pool the daemon's readers and writers share.
    public static let shared = BufferPool()

    /// Below this size `malloc` reuses memory well, and callers use it instead.
    public static let pooledMinimum = 64 << 10

    /// Buffers come in sizes that are powers of two, from 4 KiB to 64 MiB. A larger buffer is
    /// mapped for its caller alone and unmapped when it is given back.
    static let smallestClass = 12, largestClass = 26

    /// The size of a transparent huge page on x86-64 and arm64 (4 KiB base pages).
    static let hugePageSize = 2 << 20

    /// How many idle bytes are kept at most.
    public let idleLimit: Int
    /// How long the pool must go unused before its idle buffers are released.
    public let quietPeriod: Duration

    private struct State {
        /// Idle buffers' addresses, one list per size class.
        var idle = [[UInt]](repeating: [], count: BufferPool.largestClass - BufferPool.smallestClass + 1)
        var idleBytes = 0
        var lastUse = ContinuousClock.now
        var releaseScheduled = false
    }

    private let state = Mutex(State())

    public init(idleLimit: Int = 96 << 20, quietPeriod: Duration = .seconds(2)) {
        self.idleLimit = idleLimit
        self.quietPeriod = quietPeriod
    }

    /// Bytes held in idle buffers now.
    public var idleBytes: Int { state.withLock { $0.idleBytes } }

    /// A page-aligned buffer of at least `count` bytes (its `count` is the size it really has).
    public func take(_ count: Int) -> UnsafeMutableRawBufferPointer {
        let size = Self.size(for: count)
        let reused: UInt? = state.withLock { state in
            state.lastUse = .now
            guard let slot = Self.slot(of: size), let address = state.idle[slot].popLast() else { return nil }
            state.idleBytes -= size
            return address
        }
        if let reused, let pointer = UnsafeMutableRawPointer(bitPattern: reused) {
            return UnsafeMutableRawBufferPointer(start: pointer, count: size)
        }
        guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mapped != MAP_FAILED else {
            fatalError("BufferPool: cannot map \(size) bytes (\(String(cString: strerror(errno))))")
        }
        // Large buffers ask for transparent huge pages (where the system's setting is
        // "madvise", as on Debian): a first touch then costs one fault per 2 MiB instead of
        // one per 4 KiB. Refused or unsupported, the buffer works the same with small pages.
        if size >= Self.hugePageSize { _ = madvise(mapped, size, Int32(MADV_HUGEPAGE)) }
        return UnsafeMutableRawBufferPointer(start: mapped, count: size)
    }

    /// Hands back a buffer from `take`; it must not be used afterwards.
    public func giveBack(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        let size = buffer.count
        let (kept, schedule) = state.withLock { state -> (Bool, Bool) in
            state.lastUse = .now
            guard let slot = Self.slot(of: size), state.idleBytes + size <= idleLimit else { return (false, false) }
            state.idle[slot].append(UInt(bitPattern: base))
            state.idleBytes += size
            defer { state.releaseScheduled = true }
            return (true, !state.releaseScheduled)
        }
        if !kept { munmap(base, size) }
        if schedule { scheduleRelease(after: quietPeriod) }
    }

    /// A `Data` of the bytes `fill` wrote into a pooled buffer of `count` bytes; `fill` returns
    /// how many it wrote (at most `count`). The buffer goes back to the pool when the `Data` is
    /// released, or at once when `fill` throws.
    public func data<E: Error>(count: Int, fill: (UnsafeMutableRawBufferPointer) throws(E) -> Int) throws(E) -> Data {
        let buffer = take(count)
        let filled: Int
        do {
            filled = try fill(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
        } catch {
            giveBack(buffer)
            throw error
        }
        precondition(filled >= 0 && filled <= count, "BufferPool.data: fill reported \(filled) bytes of \(count)")
        guard filled > 0 else {
            giveBack(buffer)
            return Data()
        }
        let address = UInt(bitPattern: buffer.baseAddress!), size = buffer.count
        return Data(bytesNoCopy: buffer.baseAddress!, count: filled, deallocator: .custom { [self] _, _ in
            giveBack(UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(bitPattern: address), count: size))
        })
    }

    /// Unmaps every idle buffer now.
    public func releaseIdle() {
        let released = state.withLock { state -> [(UInt, Int)] in
            var all: [(UInt, Int)] = []
            for (slot, addresses) in state.idle.enumerated() {
                all += addresses.map { ($0, 1 << (slot + Self.smallestClass)) }
            }
            state.idle = state.idle.map { _ in [] }
            state.idleBytes = 0
            return all
        }
        for (address, size) in released { munmap(UnsafeMutableRawPointer(bitPattern: address), size) }
    }

    /// Releases the idle buffers once the pool has been unused for `quietPeriod`.
    private func scheduleRelease(after delay: Duration) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay.dispatchInterval) { [self] in
            let wait = state.withLock { state -> Duration? in
                let unused = ContinuousClock.now - state.lastUse
                if unused < quietPeriod && state.idleBytes > 0 { return quietPeriod - unused }
                state.releaseScheduled = false
                return nil
            }
            if let wait { scheduleRelease(after: wait) } else { releaseIdle() }
        }
    }

    /// The size of buffer handed out for a request of `count` bytes.
    static func size(for count: Int) -> Int {
        let pageSize = 1 << smallestClass
        guard count > pageSize else { return pageSize }
        if count > 1 << largestClass { return (count + pageSize - 1) / pageSize * pageSize }
        return 1 << (Int.bitWidth - (count - 1).leadingZeroBitCount)
    }

    /// The idle list a buffer of `size` bytes belongs to; `nil` for a buffer mapped alone.
    private static func slot(of size: Int) -> Int? {
        guard size.nonzeroBitCount == 1 else { return nil }
        let power = size.trailingZeroBitCount
        return (smallestClass...largestClass).contains(power) ? power - smallestClass : nil
    }
}
