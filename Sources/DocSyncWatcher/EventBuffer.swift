import Synchronization

/// The events of one watcher on their way from the hub's thread to the stream's consumer.
///
/// A caller may rely on: events come out in the order they went in, each once, to one
/// consumer; `isEmpty` is true only when the consumer has taken every event put in and asked
/// for the next one since (a consumer iterating the stream is done with an event once it
/// asks for the next), so a watcher can tell "handled" from "still on its way"; after `finish`, events
/// already in are still handed out, then `next` returns nil; after the consumer's task is
/// cancelled, `next` returns nil at once and `onCancel` runs (once).
final class EventBuffer: Sendable {
    private struct State {
        var events: [WatchEvent] = []
        var head = 0
        var waiter: CheckedContinuation<WatchEvent?, Never>?
        var finished = false
        var cancelled = false
        /// An event was handed to the consumer, who has not asked for the next one yet: it
        /// may still be on its way to where the consumer puts it.
        var handedOut = false

        mutating func pop() -> WatchEvent? {
            guard !cancelled, head < events.count else { return nil }
            let event = events[head]
            head += 1
            if head == events.count {
                events.removeAll(keepingCapacity: true)
                head = 0
            }
            return event
        }
    }

    private let state = Mutex(State())
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void = {}) {
        self.onCancel = onCancel
    }

    /// True when the consumer has taken every event put in and is done with the last one.
    var isEmpty: Bool { state.withLock { ($0.head == $0.events.count && !$0.handedOut) || $0.cancelled } }

    /// Hands `event` to the waiting consumer, or keeps it for the next `next()`. Ignored
    /// after `finish`.
    func yield(_ event: WatchEvent) {
        let waiter = state.withLock { state -> CheckedContinuation<WatchEvent?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                state.handedOut = true
                return waiter
            }
            state.events.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// No more events will come; the consumer gets those already in, then nil.
    func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next event, waiting for one if needed; nil when finished or cancelled.
    func next() async -> WatchEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WatchEvent?, Never>) in
                let now: WatchEvent?? = state.withLock { state in
                    // Asking for the next event, the consumer is done with the last one.
                    state.handedOut = false
                    if let event = state.pop() {
                        state.handedOut = true
                        return .some(event)
                    }
                    if state.finished || state.cancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            cancel()
        }
    }

    private func cancel() {
        let (waiter, first) = state.withLock { state in
            defer {
                state.cancelled = true
                state.waiter = nil
            }
            return (state.waiter, !state.cancelled)
        }
        waiter?.resume(returning: nil)
        if first { onCancel() }
    }
}
