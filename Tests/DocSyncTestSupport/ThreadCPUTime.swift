import Foundation

/// CPU time the calling thread has used, in seconds. Unlike wall time it does not grow
/// while the thread waits for a core, so a bound on it holds on a loaded machine.
public func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
