#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// One dedicated thread that waits with `poll(2)` until non-blocking descriptors are ready,
/// for every task of the process.
///
/// Tasks never block on socket I/O: they try the call, and when it would block they
/// `await waitUntil(_:on:)`, which suspends without holding a thread of the cooperative pool.
/// Cancelling the waiting task ends the wait with `CancellationError`.
final class IOReactor: Sendable {
    /// The process's reactor; its thread starts on first use and lives as long as the process.
    static let shared = IOReactor()

    enum Readiness: Sendable {
        case readable, writable
        /// Only an error or hang-up (`POLLHUP`: the peer closed the connection entirely).
        case hangUp

        var pollEvents: Int16 {
            switch self {
            case .readable: Int16(POLLIN)
            case .writable: Int16(POLLOUT)
            case .hangUp: 0
            }
        }
    }

    private enum Registration {
        /// Allocated, not yet waiting (the continuation is being created).
        case pending
        /// Cancelled before it started waiting.
        case cancelled
        case waiting(fd: Int32, events: Int16, continuation: CheckedContinuation<Void, any Error>)
    }

    private struct State {
        var nextID: UInt64 = 0
        var registrations: [UInt64: Registration] = [:]
    }

    private let state = Mutex(State())
    /// The poll thread also polls this pipe, so a new or withdrawn registration wakes it.
    private let wakeReader: Int32
    private let wakeWriter: Int32

    private init() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { fatalError("docsync: cannot create the I/O reactor's pipe: \(SystemCallError("pipe"))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakeReader = fds[0]
        wakeWriter = fds[1]
        let thread = Thread { [self] in pollLoop() }
        thread.name = "docsync-io"
        thread.start()
    }

    /// Returns once `fd` is ready (or has an error or hang-up to report: the next call on it
    /// will say which). Throws `CancellationError` when the task is cancelled.
    func waitUntil(_ readiness: Readiness, on fd: Int32) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.registrations[state.nextID] = .pending
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state in
                    if case .cancelled = state.registrations[id] {
                        state.registrations[id] = nil
                        return true
                    }
                    state.registrations[id] = .waiting(fd: fd, events: readiness.pollEvents, continuation: continuation)
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    wake()
                }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
                switch state.registrations[id] {
                case .pending:
                    state.registrations[id] = .cancelled
                    return nil
                case .waiting(_, _, let continuation):
                    state.registrations[id] = nil
                    return continuation
                case .cancelled, nil:
                    return nil  // nil: already resumed by the poll thread
                }
            }
            if let continuation {
                continuation.resume(throwing: CancellationError())
                wake()
            }
        }
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)  // EAGAIN: the pipe is full, a wake-up is pending anyway
    }

    private func pollLoop() {
        var descriptors: [pollfd] = []
        var ids: [UInt64] = []
        var drain = [UInt8](repeating: 0, count: 256)
        while true {
            descriptors.removeAll(keepingCapacity: true)
            ids.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0))
            state.withLock { state in
                for (id, registration) in state.registrations {
                    if case .waiting(let fd, let events, _) = registration {
                        descriptors.append(pollfd(fd: fd, events: events, revents: 0))
                        ids.append(id)
                    }
                }
            }
            let count = poll(&descriptors, nfds_t(descriptors.count), -1)
            if count < 0 {
                let error = currentErrno()
                if error == EINTR || error == EAGAIN { continue }
                fatalError("docsync: poll failed in the I/O reactor: \(SystemCallError("poll", errno: error))")
            }
            if descriptors[0].revents != 0 {
                while read(wakeReader, &drain, drain.count) > 0 {}
            }
            var ready: [CheckedContinuation<Void, any Error>] = []
            state.withLock { state in
                for (index, id) in ids.enumerated() where descriptors[index + 1].revents != 0 {
                    if case .waiting(_, _, let continuation) = state.registrations[id] {
                        state.registrations[id] = nil
                        ready.append(continuation)
                    }
                }
            }
            for continuation in ready { continuation.resume() }
        }
    }
}
