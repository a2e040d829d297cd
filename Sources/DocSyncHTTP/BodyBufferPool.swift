import Dispatch
import DocSyncCore
import NIOCore
import Synchronization

/// Buffers for the framed bodies of chunk batches (uploads sent, download answers served),
/// kept for reuse so that each batch does not ask the system for megabytes of fresh pages.
///
/// Why: a batch body is about 8 MB; `malloc` maps a buffer that large on its own and unmaps
/// it when it is freed, so every batch paid a page fault and the zeroing of each of its
/// pages again: 13 % of a sender's CPU during an initial sync over HTTP.
///
/// What a caller may rely on:
/// - `take` returns an empty buffer of at least the capacity asked for.
/// - `keep` may be given a buffer that is still being sent: a kept buffer is reused only
///   once nothing else holds it (`ByteBuffer.clear` allocates afresh otherwise), so its
///   bytes are never overwritten under a reader.
/// - At most `limit` buffers are kept; once the pool has gone unused for `quietPeriod`, it
///   lets them all go, so an idle process holds none.
/// - Safe to use from any thread.
public final class BodyBufferPool: Sendable {
    /// The pool the HTTP backend and the server share.
    public static let shared = BodyBufferPool()

    public let limit: Int
    public let quietPeriod: Duration

    private struct State {
        var idle: [ByteBuffer] = []
        var lastUse = ContinuousClock.now
        var releaseScheduled = false
    }

    private let state = Mutex(State())

    public init(limit: Int = 8, quietPeriod: Duration = .seconds(2)) {
        self.limit = limit
        self.quietPeriod = quietPeriod
    }

    /// Buffers kept now.
    public var idleCount: Int { state.withLock { $0.idle.count } }

    /// An empty buffer with room for `capacity` bytes: the longest-kept one, or a new one.
    public func take(capacity: Int) -> ByteBuffer {
        // Bound once, straight from the list: a second binding would hold the storage too,
        // and `clear` would then allocate afresh.
        guard var buffer = state.withLock({ state -> ByteBuffer? in
            state.lastUse = .now
            return state.idle.isEmpty ? nil : state.idle.removeFirst()
        }) else { return ByteBufferAllocator().buffer(capacity: capacity) }
        buffer.clear(minimumCapacity: capacity)
        return buffer
    }

    /// Keeps `buffer` for a later `take` (beyond `limit`, it is let go).
    public func keep(_ buffer: ByteBuffer) {
        let scheduleRelease = state.withLock { state -> Bool in
            state.lastUse = .now
            if state.idle.count < limit { state.idle.append(buffer) }
            guard !state.releaseScheduled else { return false }
            state.releaseScheduled = true
            return true
        }
        if scheduleRelease { releaseWhenQuiet(after: quietPeriod) }
    }

    /// Lets the kept buffers go once the pool has been unused for `quietPeriod`. On a
    /// Dispatch queue, not a task: a busy cooperative pool must not delay it.
    private func releaseWhenQuiet(after delay: Duration) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay.dispatchInterval) { [self] in
            let wait = state.withLock { state -> Duration? in
                let unused = ContinuousClock.now - state.lastUse
                if unused < quietPeriod && !state.idle.isEmpty { return quietPeriod - unused }
                state.idle.removeAll()
                state.releaseScheduled = false
                return nil
            }
            if let wait { releaseWhenQuiet(after: wait) }
        }
    }
}
