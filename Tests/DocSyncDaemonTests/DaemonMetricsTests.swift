@testable import DocSyncDaemon
import DocSyncCore
import DocSyncEngine
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Synchronization
import Testing

/// The daemon's `/metrics` exposition (SPEC §15) over real folders: two devices' daemons
/// (watcher, engine, the embedded file:// backend they share) in temporary directories.
@Suite(.serialized)
struct DaemonMetricsTests {
    /// What the names of the files here hold, so that any leak into a label shows.
    static let marker = "Q7xK"
    static let directory = "Geheim-Ordner-\(marker)"

    static func writeFiles(_ range: Range<Int>, in folder: URL) throws {
        let directory = folder.appendingPathComponent(Self.directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for index in range {
            let name = "zz-Privat Datei-\(marker)-\(index).txt"
            try Data("content of file \(index) \(String(repeating: "x", count: index % 300))\n".utf8)
                .write(to: directory.appendingPathComponent(name))
        }
    }

    /// Both devices settled with `count` files on the receiving one.
    static func synced(_ a: MetricsDevice, _ b: MetricsDevice, count: Int) async -> Bool {
        await eventually(timeout: .seconds(300), pollEvery: .milliseconds(50)) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: b.folder.appendingPathComponent(directory).path)) ?? []
            return names.filter { $0.hasSuffix(".txt") }.count == count && a.isSettled && b.isSettled
        }
    }

    /// The label values the exposition may hold: the folder's id and the fixed sets.
    static let allowedLabelValues: Set<String> = Set([MetricsDevice.folderID] + FolderState.allCases.map(FolderGauges.label(of:))
        + ProblemKind.allCases.map(\.rawValue) + ScanScope.allCases.map(\.rawValue))

    static func checkLabels(_ exposition: MetricsExposition, base: URL) {
        let labels = exposition.labels
        #expect(!labels.isEmpty)
        for (name, value) in labels {
            if name == "le" {  // a histogram's bucket bound
                #expect(value == "+Inf" || Double(value) != nil, "bucket bound \(value.debugDescription)")
                continue
            }
            #expect(["folder", "state", "kind", "scope"].contains(name), "label \(name)")
            #expect(Self.allowedLabelValues.contains(value), "label value \(value.debugDescription)")
            #expect(!value.contains("/") && !value.contains(marker) && !value.contains(".txt"), "label value \(value.debugDescription)")
        }
        #expect(!exposition.text.contains(marker) && !exposition.text.contains(base.path) && !exposition.text.contains("Privat"))
    }

    static func expectNeverDecreased(from before: MetricsExposition, to after: MetricsExposition, _ what: String) {
        let earlier = before.monotonic, later = after.monotonic
        #expect(!earlier.isEmpty)
        for (series, value) in earlier {
            #expect((later[series] ?? -1) >= value, "\(what): \(series) went from \(value) to \(later[series].map { "\($0)" } ?? "absent")")
        }
    }

    static let sent = "docsync_folder_sent_bytes_total", received = "docsync_folder_received_bytes_total"
    static let folderLabel = "folder=\"\(MetricsDevice.folderID)\""

    @Test func theExpositionPassesPromtoolNamesNoFileAndKeepsItsSeriesAndCounters() async throws {
        let base = try TemporaryDirectory("metrics")
        let backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        let a = try MetricsDevice(name: "a", base: base.url, backend: backend)
        let b = try MetricsDevice(name: "b", base: base.url, backend: backend)
        try await closing({ await a.stop(); await b.stop() }) {
            // 10 files, and a FIFO (a per-item problem with a path) on the sending side.
            try Self.writeFiles(0 ..< 10, in: a.folder)
            let fifo = a.folder.appendingPathComponent(Self.directory).appendingPathComponent("Geheim-fifo-\(Self.marker)")
            #expect(mkfifo(fifo.path, 0o644) == 0)
            try #require(await Self.synced(a, b, count: 10))
            let a10 = a.exposition(), b10 = b.exposition()
            for exposition in [a10, b10] {
                let check = try promtoolCheck(exposition.text)
                #expect(check.status == 0, "promtool: \(check.output)\n\(exposition.text)")
                Self.checkLabels(exposition, base: base.url)
            }
            #expect(a10.value("docsync_folder_problems", "\(Self.folderLabel),kind=\"unsupported\"") == 1)
            #expect(a10.value("docsync_folder_state", "\(Self.folderLabel),state=\"idle\"") == 1)
            #expect(a10.value("docsync_folder_state", "\(Self.folderLabel),state=\"syncing\"") == 0)
            #expect((a10.value("docsync_folder_items", Self.folderLabel) ?? 0) >= 11)
            #expect((a10.value(Self.sent, Self.folderLabel) ?? 0) > 0)
            #expect((b10.value(Self.received, Self.folderLabel) ?? 0) > 0)
            #expect((a10.value("docsync_folder_scan_duration_seconds_count", "\(Self.folderLabel),scope=\"full\"") ?? 0) >= 1)
            #expect((b10.value("docsync_folder_fetch_duration_seconds_count", Self.folderLabel) ?? 0) >= 1)
            #expect(a10.value("docsync_folder_push_reconnects_total", Self.folderLabel) == 0)

            // 1,000 files: the same series, every counter at least where it was.
            try Self.writeFiles(10 ..< 1000, in: a.folder)
            try #require(await Self.synced(a, b, count: 1000))
            let a1000 = a.exposition(), b1000 = b.exposition()
            if let dump = ProcessInfo.processInfo.environment["DOCSYNC_METRICS_DUMP"] {  // a sample to read
                try a1000.text.write(toFile: dump + "-sender.prom", atomically: true, encoding: .utf8)
                try b1000.text.write(toFile: dump + "-receiver.prom", atomically: true, encoding: .utf8)
            }
            print("metrics: one folder, \(a10.seriesCount) series at 10 files, \(a1000.seriesCount) at 1,000")
            #expect(a1000.seriesCount == a10.seriesCount)
            #expect(b1000.seriesCount == b10.seriesCount)
            #expect(Set(a1000.samples.keys) == Set(a10.samples.keys))
            Self.expectNeverDecreased(from: a10, to: a1000, "a, 10 to 1,000 files")
            Self.expectNeverDecreased(from: b10, to: b1000, "b, 10 to 1,000 files")
            #expect((a1000.value(Self.sent, Self.folderLabel) ?? 0) > (a10.value(Self.sent, Self.folderLabel) ?? 0))
            #expect((b1000.value(Self.received, Self.folderLabel) ?? 0) > (b10.value(Self.received, Self.folderLabel) ?? 0))
            #expect((b1000.value("docsync_folder_items", Self.folderLabel) ?? 0) >= 1001)
            for exposition in [a1000, b1000] {
                let check = try promtoolCheck(exposition.text)
                #expect(check.status == 0, "promtool: \(check.output)")
                Self.checkLabels(exposition, base: base.url)
            }

            // The receiving folder stopped and made again (a new engine): its counters go on.
            await b.stop()
            let stopped = b.exposition()
            Self.expectNeverDecreased(from: b1000, to: stopped, "b stopped")
            #expect(stopped.value("docsync_folder_items", Self.folderLabel) == nil)  // its gauges went with it
            try b.start()
            try Self.writeFiles(1000 ..< 1010, in: a.folder)
            try #require(await Self.synced(a, b, count: 1010))
            let restarted = b.exposition()
            Self.expectNeverDecreased(from: b1000, to: restarted, "b started again")
            #expect((restarted.value(Self.received, Self.folderLabel) ?? 0) > (b1000.value(Self.received, Self.folderLabel) ?? 0))
            #expect(restarted.seriesCount == b1000.seriesCount)
            let restartedCheck = try promtoolCheck(restarted.text)
            #expect(restartedCheck.status == 0, "promtool: \(restartedCheck.output)")
        }
    }

    @Test func pushReconnectsAreCountedPerFolder() async throws {
        let base = try TemporaryDirectory("metrics-push")
        // Nothing listens on port 1: every connection of the push stream is refused.
        let client = try HTTPBackend(url: URL(string: "http://127.0.0.1:1")!, token: "t",
                                     options: HTTPBackend.Options(reconnectInitialDelay: .milliseconds(10), reconnectMaximumDelay: .milliseconds(40)))
        let device = try MetricsDevice(name: "offline", base: base.url, backend: client)
        try await closing({ await device.stop(); await client.shutdown() }) {
            let name = "docsync_folder_push_reconnects_total"
            let some = await eventually(timeout: .seconds(30)) { (device.exposition().value(name, Self.folderLabel) ?? 0) >= 3 }
            #expect(some)
            let first = device.exposition().value(name, Self.folderLabel) ?? 0
            let more = await eventually(timeout: .seconds(30)) { (device.exposition().value(name, Self.folderLabel) ?? 0) > first }
            #expect(more)
            let exposition = device.exposition()
            #expect(exposition.value("docsync_folder_state", "\(Self.folderLabel),state=\"offline\"") == 1
                    || exposition.value("docsync_folder_state", "\(Self.folderLabel),state=\"error\"") == 1, "\(exposition.text)")
            let check = try promtoolCheck(exposition.text)
            #expect(check.status == 0, "promtool: \(check.output)")
        }
    }

    @Test(arguments: [
        (ItemProblem(path: "a/big.iso", message: "file is 60 MB, over max_file_size (50 MB): \(FolderStatus.keptHereTooLarge)"), ProblemKind.tooLarge),
        (ItemProblem(path: "a", message: FolderStatus.notSharedReadOnly), .readOnlyShare),
        (ItemProblem(path: "p", message: "cannot read this folder: permission denied"), .unreadable),
        (ItemProblem(path: "p", message: "cannot be examined: EACCES"), .unreadable),
        (ItemProblem(path: "p", message: "FIFOs, sockets and device files are not synced"), .unsupported),
        (ItemProblem(path: "p", message: "refused a change from the server: a path through a file; nothing was written"), .remoteChange),
        (ItemProblem(path: "p", message: "cannot apply the change from ada: no room"), .remoteChange),
        (ItemProblem(path: ".", message: "watcher: queue overflow (the folder was scanned again)"), .watcher),
        (ItemProblem(path: ".", message: "not mounted: fusermount3 failed"), .mount),
        (ItemProblem(path: "x", message: DetachedOnDemandFolder.notLocalMessage), .mount),
        (ItemProblem(path: "watcher: mount", message: "the server refused it"), .other),
    ])
    func problemsFallIntoAFewKindsByTheirMessageOnly(problem: ItemProblem, kind: ProblemKind) {
        #expect(ProblemKind.of(problem) == kind)
    }

    @Test func theFoldersOwnErrorIsOneOfItsKind() {
        var status = FolderStatus(id: "Docs", path: "/home/ada/Docs", state: .error, message: FolderStatus.notAuthenticated)
        #expect(ProblemKind.counts(in: status)[.notAuthenticated] == 1)
        status.message = FolderStatus.storageFull(nil)
        #expect(ProblemKind.of(status) == .storageFull)
        status.message = "something else"
        #expect(ProblemKind.of(status) == .folderError)
        status.state = .offline
        #expect(ProblemKind.of(status) == nil)
        #expect(ProblemKind.counts(in: status).count == ProblemKind.allCases.count)
    }

    @Test func measurementsBeforeASinkAreKeptAndHandedOverOnce() {
        final class Collect: EngineMetricsSink {
            let measurements = Mutex<[EngineMeasurement]>([])
            func record(_ measurement: EngineMeasurement) { measurements.withLock { $0.append(measurement) } }
        }
        let metrics = EngineMetrics()
        metrics.record(.sent(bytes: 10))
        metrics.record(.sent(bytes: 5))
        metrics.record(.pushReconnected)
        for _ in 0 ..< EngineMetrics.pendingDurationLimit + 10 { metrics.record(.scanned(.full, took: .milliseconds(3))) }
        let sink = Collect()
        #expect(metrics.attach { sink })
        #expect(!metrics.attach { Collect() })
        metrics.record(.received(bytes: 7))
        let seen = sink.measurements.withLock { $0 }
        #expect(seen.filter { if case .scanned = $0 { true } else { false } }.count == EngineMetrics.pendingDurationLimit)
        #expect(seen.contains(.sent(bytes: 15)) && seen.contains(.pushReconnected) && seen.contains(.received(bytes: 7)))
    }
}

/// The figure for the note (SPEC §15): series in the exposition with one folder at each of
/// `DOCSYNC_METRICS_FILES` (comma-separated counts, e.g. `1000,100000`) files. Run by hand:
/// `DOCSYNC_METRICS_FILES=1000,100000 swift test --skip-build --filter DaemonMetricsScale`.
@Suite(.serialized)
struct DaemonMetricsScale {
    static let counts = (ProcessInfo.processInfo.environment["DOCSYNC_METRICS_FILES"] ?? "").split(separator: ",").compactMap { Int($0) }

    @Test(.enabled(if: !counts.isEmpty)) func seriesAtScale() async throws {
        for count in Self.counts {
            let base = try TemporaryDirectory("metrics-scale", preferMemory: true)
            let backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
            let folder = base.url.appendingPathComponent("scale-folder")
            for index in 0 ..< count {
                let directory = folder.appendingPathComponent("d\(index / 1000)")
                if index % 1000 == 0 { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
                try Data("file \(index)\n".utf8).write(to: directory.appendingPathComponent("f\(index).txt"))
            }
            let started = ContinuousClock.now
            let device = try MetricsDevice(name: "scale", base: base.url, backend: backend)
            try await closing({ await device.stop() }) {
                #expect(await eventually(timeout: .seconds(3600), pollEvery: .milliseconds(500)) {
                    device.isSettled && (device.service?.status().items ?? 0) >= count
                })
                let synced = ContinuousClock.now - started
                let scrapeStarted = ContinuousClock.now
                let text = device.metrics.exposition()
                let scrape = ContinuousClock.now - scrapeStarted
                let exposition = MetricsExposition(text)
                let check = try promtoolCheck(text)
                #expect(check.status == 0, "\(check.output)")
                print("metrics figure: \(count) files: \(exposition.seriesCount) series, \(text.utf8.count) bytes, scrape \(scrape), synced in \(synced)")
            }
        }
    }
}
