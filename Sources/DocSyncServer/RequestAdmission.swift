import DocSyncScaleOut
import Logging

/// Decides whether a request may go ahead under the rate limit: `nil`, or the seconds to
/// wait. Keys are a token's hash, or `address:` and a client's address for requests
/// without a known token.
public protocol RequestAdmission: Sendable {
    /// Requests per second a key may make on average.
    var ratePerSecond: Double { get }
    func admit(_ key: String) async -> Double?
}

extension RateLimiter: RequestAdmission {}

/// The rate limit of the scale-out store: one bucket per key in PostgreSQL, shared by every
/// instance, so a device is held to the rate however the balancer spreads its requests.
/// When the database cannot be asked, the request goes ahead (the limit protects the
/// service; refusing everyone while the database is away would not).
struct SharedRateLimiter: RequestAdmission {
    let store: ScaleOutStore
    let ratePerSecond: Double
    let burst: Double
    let logger: Logger

    init(store: ScaleOutStore, ratePerSecond: Double, logger: Logger) {
        self.store = store
        self.ratePerSecond = ratePerSecond
        self.burst = RateLimiter.defaultBurst(ratePerSecond: ratePerSecond)
        self.logger = logger
    }

    func admit(_ key: String) async -> Double? {
        do {
            return try await store.admit(key, ratePerSecond: ratePerSecond, capacity: burst)
        } catch {
            logger.warning("the rate limit could not be read; the request goes ahead", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
