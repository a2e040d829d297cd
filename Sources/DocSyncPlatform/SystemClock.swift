import DocSyncCore
import Foundation
import Synchronization

extension Timestamp {
    /// The system's wall-clock time now (`CLOCK_REALTIME`, to the nanosecond `Date` gives).
    /// The core never reads it: code that decides takes the time as a value, and the
    /// programs (or an `EngineEnvironment`) pass this one in.
    public static var now: Timestamp { Timestamp(Date()) }
}

extension RecordID {
    /// A fresh record name: 32 lowercase hex characters (`RecordID.name(timeKey:random:)`).
    /// The first 16 are the time of making (milliseconds since 1970, then a counter within
    /// the millisecond), the last 16 are random. Names made later in this process sort after
    /// earlier ones, so tables keyed by record name (here and in the backend) grow at their
    /// end instead of at random places; across processes and machines only the random half
    /// keeps names apart.
    public static func newName() -> String {
        var generator = SystemRandomNumberGenerator()
        return name(timeKey: NameClock.next(), random: generator.next())
    }
}

/// The time half of `RecordID.newName()`: milliseconds since 1970 shifted left by 16 bits,
/// plus a counter, strictly increasing within the process even when the clock steps back.
private enum NameClock {
    private static let last = Mutex<UInt64>(0)

    static func next() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let milliseconds = UInt64(max(0, now.tv_sec)) &* 1000 &+ UInt64(max(0, now.tv_nsec)) / 1_000_000
        let candidate = milliseconds << 16
        return last.withLock { last in
            last = max(candidate, last &+ 1)
            return last
        }
    }
}
