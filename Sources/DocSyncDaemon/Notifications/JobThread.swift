import Foundation
import Synchronization

/// A thread of its own that runs jobs one after another, in the order given: for blocking
/// calls (libdbus waiting for a reply), which must never hold a thread of Swift's cooperative
/// pool — nor of `DispatchQueue.global()`, which on Linux shares those threads.
///
/// The thread lives until `finish`: whoever starts one finishes it.
final class JobThread: Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var finishing = false
    }

    private let queue = Mutex(Queue())
    /// Signalled once per job queued.
    private let ready = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.start()
    }

    /// Queues `job` after those before it; false (and `job` never runs) once finishing.
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let queued = queue.withLock { queue in
            guard !queue.finishing else { return false }
            queue.jobs.append(job)
            return true
        }
        if queued { ready.signal() }
        return queued
    }

    /// Queues `last`, to run after every job queued before; then the thread ends. Later
    /// calls of `submit` and `finish` are refused.
    func finish(with last: @escaping @Sendable () -> Void) {
        let queued = queue.withLock { queue in
            guard !queue.finishing else { return false }
            queue.jobs.append(last)
            queue.finishing = true
            return true
        }
        if queued { ready.signal() }
    }

    private func loop() {
        while true {
            ready.wait()
            let (job, ended) = queue.withLock { queue -> ((@Sendable () -> Void)?, Bool) in
                let job = queue.jobs.isEmpty ? nil : queue.jobs.removeFirst()
                return (job, queue.finishing && queue.jobs.isEmpty)
            }
            job?()
            if ended { return }
        }
    }
}
