import DocSyncCore
import Foundation

/// The calls of `StorageBackend` a fault can target.
public enum BackendOperation: String, CaseIterable, Hashable, Sendable {
    case createZone, deleteZone, listZones, moveZone, modifyRecords, fetchChanges, fetchRecords
    case missingChunks, uploadChunk, downloadChunk, usage
    case listDeleted, recoverDeleted, purgeDeleted
}

/// One way to misbehave: which calls, when, and how.
public struct FaultRule: Sendable {
    public enum Trigger: Sendable {
        /// The Nth matching call (1-based), once.
        case nthCall(Int)
        /// Every matching call from the Nth on (1-based).
        case fromCall(Int)
        /// Each matching call with this probability, drawn from the plan's seeded generator.
        case fraction(Double)
    }

    public enum Effect: Sendable {
        /// Fail before the call reaches the wrapped backend.
        case fail(SyncError)
        /// Let the wrapped backend apply the call, then lose its answer and throw this
        /// error instead: the client cannot know whether its write landed.
        case dropResponse(SyncError)
    }

    /// Which calls the rule counts; empty means every call.
    public var operations: Set<BackendOperation>
    public var trigger: Trigger
    public var effect: Effect

    public init(_ operations: Set<BackendOperation> = [], _ trigger: Trigger, _ effect: Effect) {
        self.operations = operations
        self.trigger = trigger
        self.effect = effect
    }
}

/// Everything a `FaultInjectingBackend` does to the calls passing through it.
public struct FaultPlan: Sendable {
    /// A fixed-window rate limit: more than `calls` calls in one `window` are refused with
    /// `requestRateLimited` carrying `retryAfter` seconds.
    public struct RateLimit: Sendable {
        public var calls: Int
        public var window: Duration
        public var retryAfter: Double

        public init(calls: Int, per window: Duration, retryAfter: Double) {
            self.calls = calls
            self.window = window
            self.retryAfter = retryAfter
        }
    }

    public var rules: [FaultRule]
    /// Added before every call.
    public var latency: Duration
    public var rateLimit: RateLimit?
    /// Seed of the generator behind `.fraction` triggers.
    public var seed: UInt64

    public init(rules: [FaultRule] = [], latency: Duration = .zero, rateLimit: RateLimit? = nil, seed: UInt64 = 1) {
        self.rules = rules
        self.latency = latency
        self.rateLimit = rateLimit
        self.seed = seed
    }

    /// No faults at all.
    public static let none = FaultPlan()
}
