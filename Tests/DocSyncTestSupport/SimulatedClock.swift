import DocSyncCore
import Synchronization

/// A clock that moves only when told: the time source of a seeded simulation, so that every
/// run of a seed sees the same times. Safe to read and advance from any thread.
///
/// Hand `reading` (or `{ clock.now }`) to whatever takes a `@Sendable () -> Timestamp`, such
/// as `MemoryBackend`.
public final class SimulatedClock: Sendable {
    /// 2024-01-01T00:00:00Z: where a clock starts unless told otherwise.
    public static let defaultStart = Timestamp(seconds: 1_704_067_200, nanoseconds: 0)

    private let current: Mutex<Timestamp>

    public init(start: Timestamp = SimulatedClock.defaultStart) {
        current = Mutex(start)
    }

    /// The time now. Two readings with no `advance` between them are equal.
    public var now: Timestamp { current.withLock { $0 } }

    /// `now`, as a function to inject.
    public var reading: @Sendable () -> Timestamp { { [self] in now } }

    /// Moves the clock forward by `duration` (not backwards: a negative duration traps).
    /// Returns the new time.
    @discardableResult
    public func advance(by duration: Duration) -> Timestamp {
        let (seconds, attoseconds) = duration.components
        precondition(duration >= .zero, "a SimulatedClock only moves forward; it was asked to move by \(duration)")
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return current.withLock { time in
            time = Timestamp(nanosecondsSince1970: time.nanosecondsSince1970 + nanoseconds)
            return time
        }
    }

    /// Moves the clock forward to `time` (a time before `now` traps).
    public func advance(to time: Timestamp) {
        current.withLock { now in
            precondition(time >= now, "a SimulatedClock only moves forward; it is at \(now) and was asked to go to \(time)")
            now = time
        }
    }
}
