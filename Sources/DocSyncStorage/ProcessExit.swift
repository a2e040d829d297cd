import Foundation

/// Waits for a child process to end without keeping a core busy, from any thread.
///
/// Foundation's `Process.waitUntilExit()` on Linux runs the calling thread's run loop until
/// the child ends. On a thread other than the one that started the process, that run loop
/// has nothing to wait on, and the loop spins: a core stays busy for as long as the child
/// runs, slowing everything beside it (a test run of a two-core machine lost most of a core
/// to a `docs-status` watched this way). This waits on the process's termination handler.
public final class ProcessExit: Sendable {
    private let done = DispatchSemaphore(value: 0)

    /// Watches `process`, which must not have been started yet: it takes its termination handler.
    public init(of process: Process) {
        process.terminationHandler = { [done] _ in done.signal() }
    }

    /// Blocks the calling thread until the process has ended (at once if it has).
    public func wait() {
        done.wait()
        done.signal()
    }

    /// Suspends until the process has ended, holding no thread of the cooperative pool.
    public func ended() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.wait()
                continuation.resume()
            }
        }
    }
}

extension Process {
    /// Starts the process and blocks until it ends (see `ProcessExit`).
    public func runUntilExit() throws {
        let exit = ProcessExit(of: self)
        try run()
        exit.wait()
    }
}
