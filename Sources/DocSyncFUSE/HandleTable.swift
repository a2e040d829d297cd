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
        /// The inode number a listing shows (never 0: readers skip such entries).
        let inode: UInt64
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
        /// The node each handle was opened on.
        var nodes: [UInt64: UInt64] = [:]
        /// What each file handle opened, as the mount showed it then (a placeholder's status
        /// for a document that is not local).
        var opened: [UInt64: stat] = [:]
    }

    private let state = Mutex(State())

    /// Registers `handle`, opened on the node `node` showing `shown` (a file's); returns its number.
    func add(_ handle: Handle, node: UInt64, shown: stat? = nil) -> UInt64 {
        state.withLock { state in
            let number = state.next
            state.next += 1
            state.handles[number] = handle
            state.nodes[number] = node
            state.opened[number] = shown
            return number
        }
    }

    /// The inodes (of the content directory) the files open on `node` were opened at.
    func openedInodes(on node: UInt64) -> Set<UInt64> {
        state.withLock { state in
            Set(state.nodes.compactMap { number, opened in opened == node ? state.opened[number].map { UInt64($0.st_ino) } : nil })
        }
    }

    /// A file open on `node` and what it showed when opened: what the node stands for once
    /// its name names another item (replaced, or removed, while open).
    func openFile(on node: UInt64) -> (handle: Handle, shown: stat)? {
        state.withLock { state in
            for (number, opened) in state.nodes where opened == node {
                if let shown = state.opened[number], let handle = state.handles[number] { return (handle, shown) }
            }
            return nil
        }
    }

    /// The nodes with a file open on them (directories aside).
    var openNodes: Set<UInt64> {
        state.withLock { state in
            Set(state.handles.compactMap { number, handle in
                if case .directory = handle { return nil }
                return state.nodes[number]
            })
        }
    }

    /// The partly read documents open now.
    var openPartialFiles: Set<ObjectIdentifier> {
        state.withLock { state in
            Set(state.handles.values.compactMap { handle in
                if case .remote(let file) = handle { return ObjectIdentifier(file) }
                return nil
            })
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

    func remove(_ number: UInt64) -> Handle? {
        state.withLock { state in
            state.nodes[number] = nil
            state.opened[number] = nil
            return state.handles.removeValue(forKey: number)
        }
    }

    /// How many handles are open (for tests and the refusal to switch modes while files are open).
    var count: Int { state.withLock { $0.handles.count } }
}
