#if canImport(Glibc)
import Glibc
#endif
import DocSyncControl
import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §15, "status never lies", with the real programs: a sending folder is `idle` only
/// once the server acknowledged every change and nothing is pending or being scanned; a
/// receiving folder is not `idle` while a change it was told of is unapplied — each daemon's
/// status sampled every 10 ms over its control socket through a 256 MB sync; and one paused,
/// held or failing folder never hides another's state.
@Suite("Status never lies", .serialized)
struct StatusNeverLiesSystemTests {
    /// How long a change the server holds may take to reach the receiver by push: a receiver
    /// settled at some moment must have everything the server held this long before (and,
    /// this long after the sender was killed, everything the server holds).
    static let notificationGrace: Duration = .seconds(1)

    @Test func aSendingAndAReceivingFolderAreIdleOnlyWhenTheyAreThroughA256MBSync() async throws {
        let started = ContinuousClock.now
        let data = try TemporaryDirectory("docsync-snl-server")
        let server = try await ServerProcess(dataDirectory: data.url)
        let pair = try await DevicePair(server: server, user: "ana")
        let (sender, receiver) = (pair.a, pair.b)
        // The samplers and the server's reader, ended however the test ends.
        let background = Synchronized<[Task<Void, Never>]>([])
        try await closing({ background.value.forEach { $0.cancel() }; await pair.stopBoth(); _ = try? await server.stop() }) {
            try pair.startBoth()
            let listening = await eventually(timeout: .seconds(30)) {
                FileManager.default.fileExists(atPath: sender.socket) && FileManager.default.fileExists(atPath: receiver.socket)
            }
            try #require(listening)
            #expect(try await sender.waitSettled())
            #expect(try await receiver.waitSettled())

            let plan = SyncPlan.make(seed: 256, totalBytes: 256 << 20)
            let written = WriteLog()
            let observations = Synchronized(Observations())
            // What the server holds, read every 250 ms as another client: a receiver settled
            // at some moment must have what the server held a notification's grace before.
            let serverHistory = Synchronized<[ServerSnapshot]>([])
            let serverPoller = Task {
                while !Task.isCancelled {
                    if let tree = try? await Self.serverTree(pair) {
                        let now = ContinuousClock.now
                        serverHistory.update { $0.append(ServerSnapshot(readBy: now, tree: tree)) }
                    }
                    try? await Task.sleep(for: .milliseconds(250))
                }
            }
            background.update { $0.append(serverPoller) }

            // The sender: every settled sample must count at least every item written before
            // it was asked for (the watcher saw it, so the index has it, and nothing is
            // pending: sent and acknowledged); at the first settled sample asked for after the
            // last write, it is killed at once — the receiver must then still get everything.
            let senderSampler = StatusSampler(name: sender.name, socket: sender.socket) { sample in
                observations.update { $0.sender.add(sample) }
                if sample.folder.state == .idle, sample.folder.pendingUploads + sample.folder.pendingDownloads > 0 {
                    observations.update { $0.violations.append("\(sender.name): idle with work pending: \(sample)") }
                }
                guard sample.folder.isSettled else { return true }
                let before = written.completed(before: sample.sent)
                if sample.folder.items < before {
                    observations.update { $0.violations.append("\(sender.name): settled with \(sample.folder.items) items while \(before) were written before the sample was asked for: \(sample)") }
                }
                guard let last = written.finishedAt, sample.sent > last else { return true }
                await sender.crash()
                observations.update { $0.senderKilled = (ContinuousClock.now, sample) }
                return false
            }
            // The receiver: idle only with nothing pending; settled only with its tree as its
            // index has it; and, once it has certainly heard of the last change, settled only
            // with the whole tree.
            let receiverClient = ControlClient(socketPath: receiver.socket)
            let receiverSampler = StatusSampler(name: receiver.name, socket: receiver.socket) { sample in
                observations.update { $0.receiver.add(sample) }
                if sample.folder.state == .idle, sample.folder.pendingUploads + sample.folder.pendingDownloads > 0 {
                    observations.update { $0.violations.append("\(receiver.name): idle with work pending: \(sample)") }
                }
                let killed = observations.value.senderKilled?.at
                if killed != nil, !sample.folder.isSettled { observations.update { $0.receiverBusyAfterKill = true } }
                guard sample.folder.isSettled else { return true }
                let tree = QuickTree(receiver.folder)
                if let known = serverHistory.value.last(where: { $0.readBy <= sample.sent - Self.notificationGrace }) {
                    let lacking = known.tree.entries.filter { tree.entries[$0.key] != $0.value }.keys.sorted()
                    observations.update { $0.receiverServerChecks += 1 }
                    if !lacking.isEmpty {
                        observations.update { $0.violations.append("\(receiver.name): settled without \(lacking.count) entries the server had held for over \(Self.notificationGrace) (\(lacking.prefix(3))): \(sample)") }
                    }
                }
                if let killed {
                    // What the receiver must end with: what the server holds (nothing changes
                    // there once the sender is killed), read as soon as it was killed.
                    guard let target = observations.value.serverTree else { return true }
                    if tree == target {
                        observations.update { $0.receiverComplete = (ContinuousClock.now, sample) }
                        return false
                    }
                    if sample.sent >= killed + Self.notificationGrace {
                        observations.update { $0.violations.append("\(receiver.name): settled \(Self.notificationGrace) after the last change was acknowledged, without all the server holds (\(tree.difference(from: target))): \(sample)") }
                    } else if observations.value.receiverBusyAfterKill {
                        observations.update { $0.unproven.append("settled within the notification grace after being busy, without all the server holds (\(tree.difference(from: target))): \(sample)") }
                    }
                    return true
                }
                // Settled means applied: the tree is what the index holds — checked when a
                // second sample, after the walk, shows that nothing happened in between.
                guard case .status(let again)? = try? await receiverClient.send(.status, timeout: .seconds(10)),
                      let after = again.folders.first, after.isSettled, after.lastSync == sample.folder.lastSync,
                      after.items == sample.folder.items
                else { return true }
                observations.update { $0.receiverIndexChecks += 1 }
                if tree.entries.count != after.items || tree.hasTemporaryFiles {
                    observations.update { $0.violations.append("\(receiver.name): settled with \(after.items) items in its index but \(tree.entries.count) entries on disk (temporary files: \(tree.hasTemporaryFiles)): \(after)") }
                }
                return true
            }
            let senderTask = senderSampler.start()
            let receiverTask = receiverSampler.start()
            background.update { $0 += [senderTask, receiverTask] }

            // Written in four rounds while both are sampled; after the first and the third the
            // sender catches up, so settled samples come mid-way too; the second and the third
            // follow each other at once.
            let writeStarted = ContinuousClock.now
            for (number, round) in plan.rounds.enumerated() {
                try await onOwnThread { Result { try written.write(round, into: sender.folder) } }.get()
                let roundEnd = written.lastCompletion
                if number == 1 || number == plan.rounds.count - 1 { continue }
                _ = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(20)) {
                    observations.value.sender.lastSettledSent.map { $0 > roundEnd } ?? false
                }
            }
            written.finish()
            let writeTook = ContinuousClock.now - writeStarted

            let senderDone = await eventually(timeout: .seconds(120), pollEvery: .milliseconds(20)) { observations.value.senderKilled != nil }
            senderTask.cancel()
            #expect(senderDone, "the sender never showed settled after the last write:\n\(observations.value.sender)\n\(sender.logTextWithoutRequests().suffix(3000))")
            if senderDone {
                // Settled means acknowledged: the server holds everything written.
                let held = try await Self.serverTree(pair)
                observations.update { $0.serverTree = held }
                #expect(held == plan.expected, "the sender showed settled (\(observations.value.senderKilled.map { "\($0.sample)" } ?? "")) while the server lacked what was written: \(held.difference(from: plan.expected))")
            }
            let receiverDone = senderDone ? await eventually(timeout: .seconds(120), pollEvery: .milliseconds(20)) { observations.value.receiverComplete != nil } : false
            receiverTask.cancel()
            serverPoller.cancel()
            await senderTask.value
            await receiverTask.value
            await serverPoller.value
            let seen = observations.value
            #expect(receiverDone, "the receiver never settled with what the server holds after the sender was killed:\n\(QuickTree(receiver.folder).difference(from: seen.serverTree ?? plan.expected))\n\(seen.receiver)\n--- receiver log:\n\(receiver.logTextWithoutRequests().suffix(3000))\n--- sender log:\n\(sender.logTextWithoutRequests().suffix(3000))")
            if receiverDone, seen.serverTree == plan.expected {
                let same = TreeSnapshot(sender.folder) == TreeSnapshot(receiver.folder)
                #expect(same, "the receiver's tree differs from the killed sender's:\n\(TreeSnapshot(sender.folder).difference(from: TreeSnapshot(receiver.folder)))")
            }
            #expect(seen.violations.isEmpty, "status lied \(seen.violations.count) times:\n\(seen.violations.prefix(10).joined(separator: "\n"))")
            // Alone on two cores (make test runs it so) each device answers over a thousand;
            // this only catches a sampler that stopped.
            #expect(seen.sender.count > 50 && seen.receiver.count > 50, "too few samples: \(seen.sender.count), \(seen.receiver.count)")
            let killedAfter = seen.senderKilled.map { $0.at - writeStarted }
            let completeAfter = seen.receiverComplete.map { $0.at - writeStarted }
            print("""
                status-never-lies: \(plan.files.count) files in \(plan.directories.count) directories, \(plan.totalBytes) bytes \
                (\(plan.files.filter { $0.size >= 1 << 20 }.count) of 1 MiB or more), written in \(writeTook)
                status-never-lies: sender killed at its first settled sample after the last write, \(killedAfter.map { "\($0)" } ?? "never") after writing began; \
                receiver complete \(completeAfter.map { "\($0)" } ?? "never") after writing began; whole test \(ContinuousClock.now - started)
                status-never-lies: \(sender.name) \(seen.sender); killed after the sample \(seen.senderKilled.map { "\($0.sample)" } ?? "none")
                status-never-lies: \(receiver.name) \(seen.receiver); at settled samples, \(seen.receiverIndexChecks) index-vs-disk checks and \(seen.receiverServerChecks) checks against what the server held \(Self.notificationGrace) before
                status-never-lies: unproven (within \(Self.notificationGrace) of the last acknowledgement): \(seen.unproven.count)\(seen.unproven.prefix(3).map { "\n  " + $0 }.joined())
                """)
        }
    }
}

/// One daemon with four folders (SPEC §15): `Paused` paused by a person, `Held` whose root
/// went away with items in it (held), `Gone` whose root went away empty (an error), and
/// `Busy` syncing changes meanwhile.
extension StatusNeverLiesSystemTests {
    @Test func onePausedHeldOrFailingFolderNeverHidesAnothersState() async throws {
        let base = try TemporaryDirectory("docsync-snl-folders")
        let daemon = try ConfiguredDaemon(base: base.url, folders: ["Paused", "Busy", "Held", "Gone"])
        for id in ["Paused", "Busy", "Held"] { try Data("first in \(id)\n".utf8).write(to: daemon.folder(id).appendingPathComponent("first.txt")) }
        try await closing({ await daemon.stop() }) {
            try daemon.start()
            try #require(await eventually(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: daemon.socket) })
            let first = try await daemon.docsStatus(["wait", "--timeout", "60"])
            try #require(first.status == 0, "\(first)\n\(daemon.logText().suffix(3000))")

            let paused = try await daemon.docsStatus(["pause", "Paused"])
            #expect(paused.status == 0, "\(paused)")
            let away = base.url.appendingPathComponent("Held-away")
            try FileManager.default.moveItem(at: daemon.folder("Held"), to: away)
            try FileManager.default.removeItem(at: daemon.folder("Gone"))
            let client = ControlClient(socketPath: daemon.socket)
            var latest: StatusSample?
            let stopped = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(10)) {
                latest = await Self.sample(client)
                return latest?["Paused"]?.state == .paused && latest?["Held"]?.state == .held && latest?["Gone"]?.state == .error
            }
            try #require(stopped, "the paused, held and gone folders did not show so: \(latest.map { "\($0.folders)" } ?? "no status")\n\(daemon.logTextWithoutRequests().suffix(3000))")

            // Busy syncs changes while the others stand: its own state shows, busy then
            // idle, and idle only once the backend has every change.
            let busyNames = (0..<40).map { "note-\($0).txt" } + ["large.bin"]
            try Data("written while paused\n".utf8).write(to: daemon.folder("Paused").appendingPathComponent("while-paused.txt"))
            let writing = ContinuousClock.now
            for name in busyNames.dropLast() { try Data("\(name)\n".utf8).write(to: daemon.folder("Busy").appendingPathComponent(name)) }
            var random = SeededRandom(seed: 8)
            try Data(random.bytes(8 << 20)).write(to: daemon.folder("Busy").appendingPathComponent("large.bin"))
            let written = ContinuousClock.now
            var tally = SampleTally(), busyStates: [String: Int] = [:], others: [String] = [], lies: [String] = []
            var busySettled: StatusSample?
            let settled = await eventually(timeout: .seconds(60), pollEvery: .milliseconds(10)) {
                guard let sample = await Self.sample(client), let busy = sample["Busy"] else { return false }
                tally.add(StatusSample(sent: sample.sent, answered: sample.answered, folders: [busy]))
                busyStates[busy.state.rawValue, default: 0] += 1
                for (id, state) in [("Paused", FolderState.paused), ("Held", .held), ("Gone", .error)] where sample[id]?.state != state {
                    others.append("\(id) \(sample[id]?.state.rawValue ?? "missing") while Busy was \(busy.state.rawValue)")
                }
                if busy.state == .idle, busy.pendingUploads + busy.pendingDownloads > 0 { lies.append("Busy idle with work pending: \(busy)") }
                guard busy.isSettled, sample.sent > written else { return false }
                busySettled = sample
                return true
            }
            #expect(settled, "Busy never settled: \(tally)\n\(daemon.logTextWithoutRequests().suffix(3000))")
            let sent = try await daemon.backendPaths("Busy")
            #expect(busyNames.allSatisfy { sent.contains($0) }, "Busy showed settled before the backend had its changes: \(busyNames.filter { !sent.contains($0) }) missing (\(busySettled.map { "\($0.folder)" } ?? ""))")
            #expect(try await !daemon.backendPaths("Paused").contains("while-paused.txt"), "nothing is sent while paused")
            #expect(busyStates.keys.contains { $0 != FolderState.idle.rawValue }, "Busy never showed its work (\(busyStates)): a stopped folder beside it hid it")
            #expect(others.isEmpty, "the stopped folders changed state while Busy synced: \(others.prefix(5))")
            #expect(lies.isEmpty, "\(lies.prefix(5))")
            print("status-never-lies (folders): Busy after \(written - writing) of writing: \(busyStates.sorted { $0.key < $1.key }); \(tally)")

            try await Self.aFileBeingWrittenIsNotIdle(daemon, client)

            // `wait` says why it cannot settle, naming every folder that keeps it from it: the
            // paused one does not hide the held one, nor the one in error.
            let wait = try await daemon.docsStatus(["wait", "--timeout", "10"])
            #expect(wait.status == 5, "\(wait)")
            for (id, what) in [("Paused", "paused"), ("Held", "is missing"), ("Gone", "does not exist")] {
                #expect(wait.errors.contains(id) && wait.errors.contains(what), "wait does not name \(id) (\(what)): \(wait.errors)")
            }
            #expect(!wait.errors.contains("Busy"), "Busy is settled: \(wait.errors)")
            // The overview shows each folder's own state and why.
            let overview = try await daemon.docsStatus([])
            #expect(overview.status == 0, "\(overview)")
            let rows = overview.output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            for (id, state) in [("Paused", "paused"), ("Busy", "idle"), ("Held", "held"), ("Gone", "error")] {
                #expect(rows.contains { $0.count > 1 && $0[0] == id && $0[1] == state }, "the overview does not show \(id) \(state):\n\(overview.output)")
            }
            for note in ["Paused: paused until", "Gone: ", "Held: "] {
                #expect(overview.output.contains(note), "the overview does not say \(note.debugDescription):\n\(overview.output)")
            }
            let json = try await daemon.docsStatusJSON(DaemonStatus.self, [])
            #expect(!json.isSettled)
            #expect(json.folders.map(\.state) == [.paused, .idle, .held, .error], "\(json.folders.map(\.state))")

            // Resumed, Paused sends what changed while the others still stand; Held comes
            // back; then only Gone keeps `wait` from settling, and it names Gone.
            let resumed = try await daemon.docsStatus(["resume", "Paused"])
            #expect(resumed.status == 0, "\(resumed)")
            try FileManager.default.moveItem(at: away, to: daemon.folder("Held"))
            var pausedStates: [String: Int] = [:]
            let caughtUp = await eventually(timeout: .seconds(60), pollEvery: .milliseconds(10)) {
                guard let sample = await Self.sample(client), let folder = sample["Paused"] else { return false }
                pausedStates[folder.state.rawValue, default: 0] += 1
                if folder.state == .idle, folder.pendingUploads + folder.pendingDownloads > 0 { lies.append("Paused idle with work pending: \(folder)") }
                guard sample["Gone"]?.state == .error else {
                    others.append("Gone \(sample["Gone"]?.state.rawValue ?? "missing") after Paused resumed")
                    return false
                }
                return folder.isSettled && sample["Held"]?.isSettled == true
            }
            #expect(caughtUp, "Paused (\(pausedStates)) or Held never settled after resume: \(daemon.logTextWithoutRequests().suffix(3000))")
            #expect(try await daemon.backendPaths("Paused").contains("while-paused.txt"), "resumed, Paused showed settled before the backend had its change")
            #expect(others.isEmpty && lies.isEmpty, "\(others.prefix(5)) \(lies.prefix(5))")
            let waitForGone = try await daemon.docsStatus(["wait", "--timeout", "2"])
            #expect(waitForGone.status == 1 && waitForGone.errors.contains("Gone error"), "\(waitForGone)")
            #expect(!waitForGone.errors.contains("Paused paused") && !waitForGone.errors.contains("Held held"), "\(waitForGone)")
        }
    }

    /// A file being written (open, not closed) is a change on its way: the watcher holds it
    /// until the writer closes it or stops for the watcher's quiet period, and until then
    /// the folder is not idle — the first sample asked for after a write shows it. (A file
    /// the watcher already reported, so the engine is not busy with its creation.)
    static func aFileBeingWrittenIsNotIdle(_ daemon: ConfiguredDaemon, _ client: ControlClient) async throws {
        let path = daemon.folder("Busy").appendingPathComponent("being-written.txt").path
        try Data("start\n".utf8).write(to: URL(fileURLWithPath: path))
        let createdAt = ContinuousClock.now
        let created = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(10)) {
            guard let sample = await Self.sample(client), sample.sent > createdAt else { return false }
            return sample["Busy"]?.isSettled == true
        }
        #expect(created, "Busy never settled after a file was made")
        let fd = open(path, O_WRONLY | O_APPEND)
        try #require(fd >= 0)
        let chunk = [UInt8](repeating: 0x61, count: 100_000)
        #expect(write(fd, chunk, chunk.count) == chunk.count)
        let whileWriting = await Self.sample(client)?["Busy"]
        #expect(whileWriting.map { !$0.isSettled } == true, "Busy showed settled while a file in it was being written: \(whileWriting.map { "\($0)" } ?? "no status")")
        #expect(write(fd, chunk, chunk.count) == chunk.count)
        close(fd)
        let closedAt = ContinuousClock.now
        let sent = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(10)) {
            guard let sample = await Self.sample(client), sample.sent > closedAt else { return false }
            return sample["Busy"]?.isSettled == true
        }
        #expect(sent, "Busy never settled after the file was closed")
        let record = try await LocalBackend(directory: daemon.backend).fetchAllChanges(in: ZoneID("Busy"), since: nil).changed.values
            .first { $0.path.string == "being-written.txt" }
        #expect(record?.size == 200_006, "Busy showed settled before the backend had the file whole: \(record.map { "\($0.size) bytes" } ?? "absent")")
    }

    /// One status sample, or nil when the daemon does not answer.
    static func sample(_ client: ControlClient) async -> StatusSample? {
        let sent = ContinuousClock.now
        guard case .status(let status)? = try? await client.send(.status, timeout: .seconds(10)), !status.folders.isEmpty else { return nil }
        return StatusSample(sent: sent, answered: .now, folders: status.folders)
    }
}

/// A `docsyncd` with a configuration file of several folders (`FOLDER-ID` at `base/device/ID`)
/// on a `file://` backend, without the status page or notifications.
final class ConfiguredDaemon: @unchecked Sendable {
    let base: URL
    let socket: String
    let log: URL
    let backend: URL
    let configuration: URL
    private var process: Process?
    private var exit: ProcessExit?

    init(base: URL, folders: [String]) throws {
        self.base = base
        socket = "/tmp/ds-\(UUID().uuidString.prefix(8)).sock"
        log = base.appendingPathComponent("docsyncd.log")
        backend = base.appendingPathComponent("backend")
        configuration = base.appendingPathComponent("docsync.toml")
        var text = """
            device = "solo"
            state_dir = "\(base.path)/state"
            socket = "\(socket)"
            notifications = false
            web_listen = "off"

            [backend]
            url = "file://\(backend.path)"

            """
        for id in folders {
            try FileManager.default.createDirectory(at: base.appendingPathComponent("device/\(id)"), withIntermediateDirectories: true)
            text += "\n[[folders]]\nid = \"\(id)\"\npath = \"\(base.path)/device/\(id)\"\n"
        }
        try Data(text.utf8).write(to: configuration)
    }

    deinit {
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        unlink(socket)
    }

    func folder(_ id: String) -> URL { base.appendingPathComponent("device/\(id)") }

    func start() throws {
        let process = Process()
        process.executableURL = builtProduct("docsyncd")
        process.arguments = ["--config", configuration.path, "--log-level", "debug"]
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "DBUS_SESSION_BUS_ADDRESS" }
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardError = handle
        process.standardOutput = handle
        let exit = ProcessExit(of: process)
        try process.run()
        self.process = process
        self.exit = exit
    }

    func stop() async {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        _ = await eventually(timeout: .seconds(20)) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        await exit?.ended()
    }

    func docsStatus(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await runProcess(builtProduct("docs-status"), arguments + ["--socket", socket])
    }

    func docsStatusJSON<T: Decodable>(_ type: T.Type, _ arguments: [String]) async throws -> T {
        let result = try await docsStatus(arguments + ["--json"])
        #expect(result.status == 0, "docs-status \(arguments): \(result.errors)")
        return try ControlFraming.makeDecoder().decode(T.self, from: Data(result.output.utf8))
    }

    /// The paths of the live records of zone `id` on the backend, read as another client.
    func backendPaths(_ id: String) async throws -> Set<String> {
        let changes = try await LocalBackend(directory: backend).fetchAllChanges(in: ZoneID(id), since: nil)
        return Set(changes.changed.values.map(\.path.string))
    }

    func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    func logTextWithoutRequests() -> String {
        logText().split(separator: "\n").filter { !$0.contains("[DocSyncControl] control request") }.joined(separator: "\n")
    }
}

extension StatusNeverLiesSystemTests {
    /// The live records of the pair's zone on the server, as a tree (read as another client).
    static func serverTree(_ pair: DevicePair) async throws -> QuickTree {
        let changes = try await LocalBackend(directory: pair.backendDirectory).fetchAllChanges(in: ZoneID("Docs"), since: nil)
        var tree = QuickTree()
        for record in changes.changed.values { tree.entries[record.path.string] = record.type == .folder ? -1 : record.size }
        return tree
    }
}

// MARK: what was seen

/// What the server held, read by a moment.
struct ServerSnapshot: Sendable {
    var readBy: ContinuousClock.Instant
    var tree: QuickTree
}

/// One status sample of a daemon: its folders, the first one by itself.
struct StatusSample: Sendable, CustomStringConvertible {
    /// When the request was sent, and when its answer came.
    var sent: ContinuousClock.Instant
    var answered: ContinuousClock.Instant
    var folders: [FolderStatus]

    var folder: FolderStatus { folders[0] }

    /// The folder with id `id`.
    subscript(id: String) -> FolderStatus? { folders.first { $0.id == id } }

    var description: String {
        "\(folder.state.rawValue), items \(folder.items), ↑\(folder.pendingUploads) (\(folder.pendingUploadBytes) B), "
            + "↓\(folder.pendingDownloads) (\(folder.pendingDownloadBytes) B), problems \(folder.problems.count)"
            + (folder.message.map { ", \"\($0)\"" } ?? "")
    }
}

/// Counts of one device's samples.
struct SampleTally: Sendable, CustomStringConvertible {
    var count = 0
    var settled = 0
    var states: [String: Int] = [:]
    var maxPendingUploads = 0
    var maxPendingDownloads = 0
    var slowest: Duration = .zero
    var lastSettledSent: ContinuousClock.Instant?
    var first: ContinuousClock.Instant?
    var last: ContinuousClock.Instant?

    mutating func add(_ sample: StatusSample) {
        count += 1
        states[sample.folder.state.rawValue, default: 0] += 1
        if sample.folder.isSettled {
            settled += 1
            lastSettledSent = sample.sent
        }
        maxPendingUploads = max(maxPendingUploads, sample.folder.pendingUploads)
        maxPendingDownloads = max(maxPendingDownloads, sample.folder.pendingDownloads)
        slowest = max(slowest, sample.answered - sample.sent)
        first = first ?? sample.sent
        last = sample.sent
    }

    var description: String {
        let span = first.flatMap { first in last.map { $0 - first } } ?? .zero
        let states = states.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "\(count) samples over \(span) (\(settled) settled; \(states)); most pending ↑\(maxPendingUploads) ↓\(maxPendingDownloads); slowest answer \(slowest)"
    }
}

struct Observations: Sendable {
    var sender = SampleTally()
    var receiver = SampleTally()
    var violations: [String] = []
    /// Settled samples with an incomplete tree soon after the last change: the push may not
    /// have reached the receiver yet, so they prove nothing.
    var unproven: [String] = []
    var senderKilled: (at: ContinuousClock.Instant, sample: StatusSample)?
    var receiverBusyAfterKill = false
    var receiverComplete: (at: ContinuousClock.Instant, sample: StatusSample)?
    var receiverIndexChecks = 0
    var receiverServerChecks = 0
    /// What the server holds once the sender was killed.
    var serverTree: QuickTree?
}

/// Samples a daemon's status every 10 ms over its control socket, handing each sample to
/// `check` until it returns false or the task is cancelled.
struct StatusSampler: Sendable {
    let name: String
    let client: ControlClient
    let check: @Sendable (StatusSample) async -> Bool

    init(name: String, socket: String, check: @escaping @Sendable (StatusSample) async -> Bool) {
        self.name = name
        self.client = ControlClient(socketPath: socket)
        self.check = check
    }

    static let period: Duration = .milliseconds(10)

    func start() -> Task<Void, Never> {
        Task {
            var next = ContinuousClock.now
            while !Task.isCancelled {
                let sent = ContinuousClock.now
                if case .status(let status)? = try? await client.send(.status, timeout: .seconds(10)), !status.folders.isEmpty {
                    guard await check(StatusSample(sent: sent, answered: .now, folders: status.folders)) else { return }
                }
                next += Self.period
                if next < .now { next = .now }
                try? await Task.sleep(until: next, clock: .continuous)
            }
        }
    }
}

// MARK: what is written

/// What the sync moves: directories, and files of a given size (large ones and many small ones).
struct SyncPlan: Sendable {
    struct File: Sendable {
        var path: String
        var size: Int
    }

    var directories: [String]
    var files: [File]
    /// The files in the rounds they are written in (each a shuffled mix of large and small).
    var rounds: [[File]]
    /// The whole tree as the receiver must end with it.
    var expected: QuickTree

    var totalBytes: Int { files.reduce(0) { $0 + $1.size } }

    /// About a quarter of `totalBytes` in 1,200 small files (0.5 to 95 KB) in 24 directories,
    /// the rest in files of 3 to 14 MB.
    static func make(seed: UInt64, totalBytes: Int) -> SyncPlan {
        var random = SeededRandom(seed: seed)
        var files: [File] = []
        var directories = ["large", "small"]
        for d in 0..<24 { directories.append("small/d\(d)") }
        for index in 0..<1200 {
            files.append(File(path: "small/d\(index % 24)/note-\(index).txt", size: Int.random(in: 512...95_000, using: &random)))
        }
        var left = totalBytes - files.reduce(0) { $0 + $1.size }
        var index = 0
        while left > 0 {
            let size = left < 17 << 20 ? left : Int.random(in: (3 << 20)...(14 << 20), using: &random)
            files.append(File(path: "large/part-\(index).bin", size: size))
            left -= size
            index += 1
        }
        files.shuffle(using: &random)
        let quarter = (files.count + 3) / 4
        let rounds = stride(from: 0, to: files.count, by: quarter).map { Array(files[$0..<min(files.count, $0 + quarter)]) }
        var expected = QuickTree()
        for directory in directories { expected.entries[directory] = -1 }
        for file in files { expected.entries[file.path] = Int64(file.size) }
        return SyncPlan(directories: directories, files: files, rounds: rounds, expected: expected)
    }
}

/// Writes the plan's files (random bytes, large ones a mebibyte per `write`) and notes when
/// each entry was complete: a status sample asked for after that must count it.
final class WriteLog: Sendable {
    private let state = Synchronized(State())

    private struct State: Sendable {
        var completions: [ContinuousClock.Instant] = []
        var finished = false
    }

    /// The number of entries (directories and files) complete before `instant`.
    func completed(before instant: ContinuousClock.Instant) -> Int {
        state.update { state in
            var low = 0, high = state.completions.count
            while low < high {
                let middle = (low + high) / 2
                if state.completions[middle] < instant { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    var lastCompletion: ContinuousClock.Instant { state.value.completions.last ?? .now }

    /// When the last entry was complete, once every round is written.
    var finishedAt: ContinuousClock.Instant? { state.update { $0.finished ? $0.completions.last : nil } }

    func finish() { state.update { $0.finished = true } }

    /// Writes `files` (making their directories first when missing), blocking.
    func write(_ files: [SyncPlan.File], into root: URL) throws {
        let random = open("/dev/urandom", O_RDONLY)
        guard random >= 0 else { throw POSIXError(.EIO) }
        defer { close(random) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for file in files {
            let directory = (file.path as NSString).deletingLastPathComponent
            var made = ""
            for part in directory.split(separator: "/") {
                made += (made.isEmpty ? "" : "/") + part
                if mkdir(root.path + "/" + made, 0o755) == 0 { note() }
            }
            let fd = open(root.path + "/" + file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            var left = file.size
            while left > 0 {
                let count = min(left, buffer.count)
                let filled = buffer.withUnsafeMutableBytes { read(random, $0.baseAddress, count) }
                guard filled == count, buffer.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, count) }) == count else {
                    close(fd)
                    throw POSIXError(.EIO)
                }
                left -= count
            }
            guard close(fd) == 0 else { throw POSIXError(.EIO) }
            note()
        }
    }

    private func note() {
        let now = ContinuousClock.now
        state.update { $0.completions.append(now) }
    }
}

/// A folder's entries as paths with their sizes (-1 for a directory), from `lstat` only: quick
/// enough to take at every settled sample. The root marker is left out.
struct QuickTree: Equatable, Sendable {
    var entries: [String: Int64] = [:]

    init() {}

    init(_ root: URL) {
        var stack = [""]
        while let next = stack.popLast() {
            let directory = next.isEmpty ? root.path : root.path + "/" + next
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in names where !(next.isEmpty && name == IgnoreRules.rootMarkerName) {
                let relative = next.isEmpty ? name : next + "/" + name
                var info = stat()
                guard lstat(root.path + "/" + relative, &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFDIR {
                    entries[relative] = -1
                    stack.append(relative)
                } else {
                    entries[relative] = Int64(info.st_size)
                }
            }
        }
    }

    var hasTemporaryFiles: Bool {
        entries.keys.contains { ($0 as NSString).lastPathComponent.hasPrefix(IgnoreRules.temporaryFilePrefix) }
    }

    /// What differs, briefly: counts and the first few paths.
    func difference(from expected: QuickTree) -> String {
        let missing = expected.entries.keys.filter { entries[$0] == nil }.sorted()
        let extra = entries.keys.filter { expected.entries[$0] == nil }.sorted()
        let wrong = expected.entries.keys.filter { entries[$0] != nil && entries[$0] != expected.entries[$0] }.sorted()
        return "\(missing.count) missing \(missing.prefix(3)), \(extra.count) extra \(extra.prefix(3)), \(wrong.count) of another size \(wrong.prefix(3))"
    }
}
