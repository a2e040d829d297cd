import Glibc
import Synchronization

/// The files and directories open through the mount, by the handle number the kernel passes
/// back with each read, write and release. Safe to use from every FUSE thread.
final class HandleTable: Sendable {
    /// One entry of a directory listing, as shown at the mount.
    struct DirectoryEntry: Sendable {
        let name: String
        /// The `S_IF…` type bits.
        let type: mode_t
    }

    enum Handle: Sendable {
        /// A file of the content directory, open; `written` once something was written through it.
        case file(descriptor: Int32, written: Bool)
        /// A document that is not local, read through the partial cache.
        case remote(PartialFile)
        /// A directory's listing, taken when it was opened.
        case directory([DirectoryEntry])
    }

    private struct State {
        var next: UInt64 = 1
        var handles: [UInt64: Handle] = [:]
    }

    private let state = Mutex(State())

    func add(_ handle: Handle) -> UInt64 {
        state.withLock { state in
            let number = state.next
            state.next += 1
            state.handles[number] = handle
            return number
        }
    }

    subscript(number: UInt64) -> Handle? { state.withLock { $0.handles[number] } }

    /// Marks a file handle written; returns its descriptor (nil for any other handle).
    func markWritten(_ number: UInt64) -> Int32? {
        state.withLock { state in
            guard case .file(let descriptor, _) = state.handles[number] else { return nil }
            state.handles[number] = .file(descriptor: descriptor, written: true)
            return descriptor
        }
    }

    /// Clears a file handle's written mark; returns whether it was set.
    func takeWritten(_ number: UInt64) -> Bool {
        state.withLock { state in
            guard case .file(let descriptor, true) = state.handles[number] else { return false }
            state.handles[number] = .file(descriptor: descriptor, written: false)
            return true
        }
    }

    func remove(_ number: UInt64) -> Handle? { state.withLock { $0.handles.removeValue(forKey: number) } }

    /// How many handles are open (for tests and the refusal to switch modes while files are open).
    var count: Int { state.withLock { $0.handles.count } }
}
