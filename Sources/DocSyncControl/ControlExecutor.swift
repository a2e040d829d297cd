import Dispatch
import Foundation
import Synchronization

/// The thread the control server's tasks prefer to run on.
///
/// The cooperative pool has one thread per core — two on a small machine — and the engine
/// keeps it busy while it hashes and chunks. The control server's tasks (accepting, framing,
/// and handlers that are not isolated to an actor) run here instead, so `docs-status` gets
/// its answer while the daemon is busy. Work that hops to an actor still runs where that
/// actor runs. Jobs run one at a time, in the order they were enqueued.
final class ControlExecutor: TaskExecutor, Sendable {
    /// One for the process; its thread starts on first use.
    static let shared = ControlExecutor()

    private let jobs = Mutex<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in runJobs() }
        thread.name = "docsync-control"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    private func runJobs() {
        while true {
            available.wait()
            let batch = jobs.withLock { jobs in
                defer { jobs.removeAll(keepingCapacity: true) }
                return jobs
            }
            for job in batch {
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }
}
