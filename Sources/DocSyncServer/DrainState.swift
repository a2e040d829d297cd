import Synchronization

/// Whether the server is draining: from the shutdown signal (SIGTERM, SIGINT) until the
/// process exits. Once set it stays set. `/readyz` answers 503 while it is, so a load
/// balancer stops sending this instance requests at once; everything else is served as
/// before until the drain delay is over (`DrainService`).
public final class DrainState: Sendable {
    private let draining = Atomic<Bool>(false)

    public init() {}

    /// True from `begin()` on.
    public var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// Marks the server as draining; returns false when it already was.
    @discardableResult
    public func begin() -> Bool {
        !draining.exchange(true, ordering: .acquiringAndReleasing)
    }
}
