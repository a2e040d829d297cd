import Synchronization

/// A value shared between tasks and threads behind a lock.
public final class Synchronized<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public var value: Value { mutex.withLock { $0 } }

    @discardableResult
    public func update<T: Sendable>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}
