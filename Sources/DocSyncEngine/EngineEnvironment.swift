import DocSyncCore
import DocSyncPlatform
import Foundation

/// Where an engine gets what is not its input: time, record names, randomness, and whether
/// its work overlaps. The daemon uses `live` (the real clocks, random names, pipelined
/// sending and fetching); a seeded simulation passes its own, so a seed replays exactly.
///
/// A caller may rely on: the engine reads the time, makes record names and draws backoff
/// jitter only through these functions; with `serial`, one turn of the engine makes its
/// backend and file-system calls one after the other, on the task that called it, in an
/// order that depends only on its inputs (no prefetch, no pages or chunk batches in
/// flight together, no downloads written ahead in parallel).
public struct EngineEnvironment: Sendable {
    /// Monotonic time: waits, backoffs, the deletion brake's quiet period.
    public var now: @Sendable () -> ContinuousClock.Instant
    /// Wall-clock time: version-store entries, held-since times, marker and restore times.
    public var wallNow: @Sendable () -> Timestamp
    /// A fresh record name (`RecordID.newName()` in the daemon): must never repeat.
    public var newRecordName: @Sendable () -> String
    /// Random bits for backoff jitter.
    public var random: @Sendable () -> UInt64
    /// Everything one after the other, on the calling task (see the type's comment).
    public var serial: Bool

    public init(now: @escaping @Sendable () -> ContinuousClock.Instant, wallNow: @escaping @Sendable () -> Timestamp,
                newRecordName: @escaping @Sendable () -> String, random: @escaping @Sendable () -> UInt64, serial: Bool) {
        self.now = now
        self.wallNow = wallNow
        self.newRecordName = newRecordName
        self.random = random
        self.serial = serial
    }

    /// The real clocks, random names, system randomness, pipelined work: what the daemon runs on.
    public static let live = EngineEnvironment(
        now: { ContinuousClock.now }, wallNow: { Timestamp.now }, newRecordName: { RecordID.newName() },
        random: { var generator = SystemRandomNumberGenerator(); return generator.next() }, serial: false)
}

/// `EngineEnvironment.random` as a generator, for `RetryPolicy.delay`.
struct EnvironmentRandom: RandomNumberGenerator {
    let source: @Sendable () -> UInt64
    mutating func next() -> UInt64 { source() }
}
