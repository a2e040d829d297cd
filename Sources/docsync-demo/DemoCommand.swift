import ArgumentParser
import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import Foundation

/// `make demo`: what docsync does, on the embedded local backend, step by step — first the
/// backend itself (chunking, storing, editing, conflicts, change tokens, notifications),
/// then a `docsync-server` on loopback and two real `docsyncd` daemons keeping two folders
/// identical through it.
@main
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docsync-demo",
        abstract: "Show what docsync does: an embedded backend, then docsync-server and two daemons on loopback, all in temporary directories.")

    @Option(help: "A file of yours to chunk and store instead of the generated 20 MB sample.")
    var file: String?

    @Option(help: "Backend directory to use (default: a fresh temporary one, removed afterwards).")
    var backend: String?

    mutating func run() async throws {
        let temporary = backend == nil
        let directory = backend.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("docsync-demo-\(UUID().uuidString.prefix(8))")
        defer { if temporary { try? FileManager.default.removeItem(at: directory) } }
        let step = StepPrinter()

        step.title("1. An embedded backend: file://\(directory.path)")
        let laptop = try LocalBackend(url: directory)
        let zone = ZoneID("Documents")
        try await laptop.createZone(zone)
        step.say("zone \(zone) created; zones now: \(try await laptop.listZones().map(\.name))")

        step.title("2. A second client of the same backend (as a second process would be), listening for pushes")
        let desktop = try LocalBackend(url: directory)
        let pushes = PushListener(desktop.changeNotifications())
        let (_, startToken) = try await Self.drain(desktop, zone, since: nil)

        let name = file.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "sample.bin"
        let content = try file.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
            ?? Self.sample(count: 20 * 1024 * 1024)
        step.title("3. Chunk and store \(name) (\(content.count) bytes) — upload first, then the record")
        let started = ContinuousClock.now
        let stored = try await laptop.storeAsset(content)
        step.say("content-defined chunks: \(stored.reference.chunkCount) (\(ChunkerParameters.documents)); whole-file SHA-256 \(stored.reference.contentDigest.shortHex)…")
        step.say("uploaded \(stored.uploadedDataChunks) chunks (\(stored.uploadedDataBytes) bytes) + \(stored.uploadedManifestNodes) manifest nodes (\(stored.uploadedManifestBytes) bytes) in \(Self.format(ContinuousClock.now - started))")
        let folder = Record(id: RecordID(zone: zone, recordName: RecordID.newName()), type: .folder, path: RelativePath("Projects"),
                            modified: .now, mode: 0o755, lastModifiedBy: "laptop")
        var document = Record(id: RecordID(zone: zone, recordName: RecordID.newName()), type: .document,
                              path: RelativePath("Projects/\(name)"), size: Int64(content.count), modified: .now, mode: 0o644,
                              contentDigest: stored.reference.contentDigest, asset: stored.reference, lastModifiedBy: "laptop")
        let link = Record(id: RecordID(zone: zone, recordName: RecordID.newName()), type: .symlink, path: RelativePath("latest"),
                          size: Int64("Projects/\(name)".utf8.count), modified: .now, mode: 0o777,
                          symlinkTarget: "Projects/\(name)", lastModifiedBy: "laptop")
        let saveStarted = ContinuousClock.now
        let saved = try await laptop.modifyRecords(RecordBatch(zone: zone, saves: [folder, document, link], atomic: true))
        document = saved.saved[document.id]!
        step.say("saved 3 records atomically; \(document.path) has change tag \(document.changeTag!)")
        step.say(await pushes.report(since: saveStarted))

        step.title("4. The desktop fetches what changed since its token")
        let (changes, token) = try await Self.drain(desktop, zone, since: startToken)
        for record in changes.changed { step.say("  \(record.type.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(record.path)") }
        let fetched = try await desktop.loadAsset(changes.changed.first { $0.id == document.id }!.asset!)
        step.say("desktop downloaded \(fetched.count) bytes; digest verified: \(fetched == content ? "identical" : "DIFFERENT")")

        step.title("5. Insert one byte in the middle of \(name) and store it again")
        var edited = content
        edited.insert(0x2a, at: edited.count / 2)
        let editStarted = ContinuousClock.now
        let again = try await laptop.storeAsset(edited)
        step.say("new chunks: \(again.uploadedDataChunks) (\(again.uploadedDataBytes) bytes); new manifest nodes: \(again.uploadedManifestNodes) (\(again.uploadedManifestBytes) bytes); asset root in the record: \(again.referenceBytes) bytes")
        step.say("everything else (\(again.reference.chunkCount - again.uploadedDataChunks) chunks) was already stored")
        var update = document
        update.size = Int64(edited.count)
        update.contentDigest = again.reference.contentDigest
        update.asset = again.reference
        update.modified = .now
        let updateStarted = ContinuousClock.now
        let updated = try await laptop.modifyRecords(RecordBatch(zone: zone, saves: [update])).saved[update.id]!
        step.say("stored and saved in \(Self.format(ContinuousClock.now - editStarted)); change tag \(document.changeTag!) → \(updated.changeTag!)")
        step.say(await pushes.report(since: updateStarted))

        step.title("6. The desktop saves a rename based on the old change tag: a conflict, not an overwrite")
        var rename = document
        rename.path = RelativePath("Projects/renamed-\(name)")
        rename.lastModifiedBy = "desktop"
        let answer = try await desktop.modifyRecords(RecordBatch(zone: zone, saves: [rename]))
        if let error = answer.failed[rename.id] {
            step.say("\(error.code.rawValue): the server's record (tag \(error.serverRecord?.changeTag?.rawValue ?? "?"), by \(error.serverRecord?.lastModifiedBy ?? "?")) comes back for a three-way merge")
        }

        step.title("7. Deletion leaves a tombstone in the change history")
        _ = try await laptop.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: link.id)]))
        let (afterDelete, _) = try await Self.drain(desktop, zone, since: token)
        step.say("desktop sees \(afterDelete.changed.count) changed record(s) and \(afterDelete.deleted.count) tombstone(s)")
        let usage = try await laptop.usage()
        step.say("backend holds \(usage.recordCount) records, \(usage.chunkCount) chunks, \(usage.chunkBytes) bytes")

        let devices = FileManager.default.temporaryDirectory.appendingPathComponent("docsync-demo-devices-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: devices) }
        try await DaemonDemo(base: devices).run()

        if temporary { step.say("\n(the temporary directories are removed; pass --backend DIR to keep the first backend)") }
    }

    /// Every change after `token`, page by page.
    static func drain(_ backend: LocalBackend, _ zone: ZoneID, since token: ChangeToken?) async throws -> (ChangeSet, ChangeToken) {
        var all = ChangeSet(changed: [], deleted: [], token: token ?? ChangeToken(opaqueValue: Data()), moreComing: true)
        var token = token
        while all.moreComing {
            let page = try await backend.fetchChanges(in: zone, since: token, limit: 400)
            all = ChangeSet(changed: all.changed + page.changed, deleted: all.deleted + page.deleted, token: page.token, moreComing: page.moreComing)
            token = page.token
        }
        return (all, all.token)
    }

    static func sample(count: Int) -> Data {
        var state: UInt64 = 2026
        return Data((0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        })
    }

    static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds < 1 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.2f s", seconds)
    }
}

struct StepPrinter {
    func title(_ text: String) { print("\n\(text)") }
    func say(_ text: String) { print("   \(text)") }
}

/// Notes when pushes arrive on a notification stream.
actor PushListener {
    private var arrivals: [ContinuousClock.Instant] = []

    init(_ stream: AsyncStream<ChangeNotification>) {
        Task { [weak self] in
            for await _ in stream { await self?.arrived() }
        }
    }

    private func arrived() { arrivals.append(.now) }

    /// Waits up to two seconds for a push after `instant` and says how long it took.
    func report(since instant: ContinuousClock.Instant) async -> String {
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline {
            if let first = arrivals.first(where: { $0 >= instant }) {
                return "the desktop was notified \(DemoCommand.format(first - instant)) after the laptop began saving"
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return "no push reached the desktop within 2 s (it would find the change at its next fetch)"
    }
}
