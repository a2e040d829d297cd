import DocSyncHTTP
import ServiceLifecycle
import Synchronization

/// The daemon's folders: those it started with and those attached while it runs
/// (`docs-status accept`), run side by side as one service of the daemon's `ServiceGroup`.
/// A folder's service that fails (a watch that cannot start) stops the daemon, as at start.
final class FolderSet: Service, Sendable {
    private struct State {
        var folders: [FolderService]
        /// Folders added, not yet started by `run`.
        var added: AsyncStream<FolderService>.Continuation?
        /// The clients of shares attached while running, shut down with the set.
        var clients: [HTTPBackend] = []
    }

    private let state: Mutex<State>
    private let added: AsyncStream<FolderService>

    init(_ folders: [FolderService]) {
        let (stream, continuation) = AsyncStream<FolderService>.makeStream()
        added = stream
        state = Mutex(State(folders: folders, added: continuation))
    }

    /// Every folder now, in the order they were added.
    var all: [FolderService] { state.withLock { $0.folders } }

    /// Adds `folder` and starts it (at once when the set runs, else when it starts);
    /// `client` is shut down when the daemon stops. Returns false when the daemon is
    /// stopping: the folder is not started.
    func add(_ folder: FolderService, client: HTTPBackend?) -> Bool {
        state.withLock { state in
            guard let added = state.added else { return false }
            state.folders.append(folder)
            if let client { state.clients.append(client) }
            added.yield(folder)
            return true
        }
    }

    /// Stops `folder` and takes it out of the set; returns once its run has ended.
    func remove(_ folder: FolderService) async {
        let present = state.withLock { state in
            guard let index = state.folders.firstIndex(where: { $0 === folder }) else { return false }
            state.folders.remove(at: index)
            return true
        }
        guard present else { return }
        folder.stop()
        await folder.stopped()
    }

    func run() async throws {
        let initial = all
        try await withThrowingTaskGroup(of: Void.self) { group in
            for folder in initial { group.addTask { try await self.run(folder) } }
            await withGracefulShutdownHandler {
                for await folder in added { group.addTask { try await self.run(folder) } }
            } onGracefulShutdown: {
                self.stopAdding()
            }
            try await group.waitForAll()
        }
    }

    /// Runs one folder; its failure ends the set (and the daemon).
    private func run(_ folder: FolderService) async throws {
        do { try await folder.run() } catch {
            stopAdding()
            throw error
        }
    }

    private func stopAdding() {
        state.withLock { state in
            state.added?.finish()
            state.added = nil
        }
    }

    /// The share clients added while running, for the daemon to shut down.
    var clients: [HTTPBackend] { state.withLock { $0.clients } }
}
