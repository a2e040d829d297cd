import Dispatch

extension Duration {
    /// The duration for `DispatchQueue.asyncAfter`, to the nanosecond.
    public var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int(components.seconds) * 1_000_000_000 + Int(components.attoseconds / 1_000_000_000))
    }
}
