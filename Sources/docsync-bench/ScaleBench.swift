import DocSyncCore
import DocSyncEngine
import DocSyncPlatform
import Foundation

/// The scale benchmark of issue 25: an initial sync of `files` small files (1–8 KiB of
/// random bytes, 20 to a directory, one name in 100 a `.jpg`) between two daemons through
/// `docsync-server`, beside `rsync -a` of the same tree; the receiver's rate over each tenth
/// of the files; every process's peak and idle memory; a restart over the synced folder with
/// a warm and a cold page cache; a metadata query; and how fast a 4 KiB change crosses the
/// idle folder against a folder of 100 files.
enum ScaleBench {
    struct Size: Encodable {
        let files: Int
        let directories: Int
        let bytes: Int64
        let makeTreeSeconds: Double
        let rsyncSeconds: Double?
        /// From starting both daemons until the receiver holds every item and is settled.
        let docsyncSeconds: Double
        /// The receiver's files per second over each tenth of the items, counted from the
        /// first item it received.
        let ratePerTenth: [Double]
        /// The last tenth's rate over the first tenth's (target ≥ 0.8).
        let flatness: Double
        /// Peak resident memory (`VmHWM`) during the sync, by process: sender, receiver, server.
        let peakMegabytes: [String: Double]
        /// Resident memory once idle after the sync, by process.
        let idleMegabytes: [String: Double]
        /// The receiver stopped and started with nothing changed, until `docs-status wait`
        /// answers settled: with the page cache warm, and after dropping it (`nil`: not root).
        let restartWarmSeconds: Double
        let restartColdSeconds: Double?
        /// `name LIKE '*.jpg'` on the receiver's index, the query itself (median of 5).
        let queryMilliseconds: Double
        let queryMatches: Int
        /// A 4 KiB file overwritten in the idle folder until the other device holds it.
        let changeP50Milliseconds: Double
        /// The same in a folder of 100 files, in the same run.
        let smallFolderChangeP50Milliseconds: Double

        var lines: [String] {
            [
                String(format: "%d files in %d directories, %.0f MB (made in %.0f s)", files, directories, Double(bytes) / 1e6, makeTreeSeconds),
                String(format: "initial sync through docsync-server: %.1f s; rsync -a %@", docsyncSeconds,
                       rsyncSeconds.map { String(format: "%.1f s (docsync/rsync = %.2f×)", $0, docsyncSeconds / $0) } ?? "not installed"),
                "receiver's files/s per tenth: " + ratePerTenth.map { String(format: "%.0f", $0) }.joined(separator: " ")
                    + String(format: " (last/first = %.2f, target ≥ 0.80)", flatness),
                "peak RSS MB: " + peakMegabytes.sorted(by: { $0.key < $1.key }).map { String(format: "%@ %.0f", $0.key, $0.value) }.joined(separator: ", ")
                    + " (target ≤ 250); idle: " + idleMegabytes.sorted(by: { $0.key < $1.key }).map { String(format: "%@ %.0f", $0.key, $0.value) }.joined(separator: ", ")
                    + " (target ≤ 150)",
                String(format: "restart to settled: warm %.1f s (target ≤ 15), cold %@", restartWarmSeconds,
                       restartColdSeconds.map { String(format: "%.1f s", $0) } ?? "not measured (dropping the page cache needs root)"),
                String(format: "query name LIKE '*.jpg': %d matches in %.1f ms (target ≤ 100 at 1,000,000)", queryMatches, queryMilliseconds),
                String(format: "4 KiB change p50: %.1f ms here, %.1f ms in a 100-file folder (%.2f×, target ≤ 2)",
                       changeP50Milliseconds, smallFolderChangeP50Milliseconds, changeP50Milliseconds / smallFolderChangeP50Milliseconds),
            ]
        }
    }

    struct Report: Encodable {
        let sizes: [Size]
        /// The largest size's sync time over the smallest's (target ≤ 12 for 1 M over 100 k).
        let growth: Double?
    }

    static let filesPerDirectory = 20

    static func run(base: URL, sizes: [Int]) async throws -> Report {
        var measured: [Size] = []
        for files in sizes {
            print("\n== \(files) files of 1–8 KiB, \(filesPerDirectory) to a directory, through docsync-server ==")
            let size = try await one(base: base.appendingPathComponent("files-\(files)"), files: files)
            for line in size.lines { print(line) }
            measured.append(size)
        }
        var growth: Double?
        if let smallest = measured.first, let largest = measured.last, measured.count > 1 {
            growth = largest.docsyncSeconds / smallest.docsyncSeconds
            print(String(format: "\n%d files took %.1f× the time of %d (files %.0f×; target ≤ 12× for 10× the files)",
                         largest.files, growth!, smallest.files, Double(largest.files) / Double(smallest.files)))
        }
        return Report(sizes: measured, growth: growth)
    }

    static func one(base: URL, files: Int) async throws -> Size {
        let server = try BenchServer(base: base)
        try server.start()
        defer { server.stop() }
        // A daemon of `name` on the scale folder; made again for each restart, over the same state.
        func daemon(_ name: String) throws -> BenchDaemon {
            try BenchDaemon(name: name, base: base, backend: ServerBench.url(server.port), tokenFile: server.tokenFile, zone: "Scale")
        }
        let sender = try daemon("alpha")
        var receiver = try daemon("beta")

        let making = ContinuousClock.now
        let (directories, bytes) = try makeTree(at: sender.folder, files: files)
        let makeTreeSeconds = SyncBench.seconds(ContinuousClock.now - making)
        _ = try SyncBench.timed("sync", [])
        let rsync = try? SyncBench.timed("rsync", ["-a", sender.folder.path + "/", base.appendingPathComponent("rsync-copy").path + "/"])
        _ = try SyncBench.timed("sync", [])

        let items = files + directories
        let started = ContinuousClock.now
        try sender.start()
        try receiver.start()
        defer { sender.stop(); receiver.stop() }
        // The receiver's item count over time: asked every 250 ms (a status counts over the
        // index, so asking more often would cost the daemon more than it tells).
        var samples: [(seconds: Double, items: Int)] = []
        while true {
            if let status = await receiver.status(), let folder = status.folders.first {
                samples.append((SyncBench.seconds(ContinuousClock.now - started), folder.items))
                if folder.items == items, folder.isSettled { break }
            }
            if ContinuousClock.now - started > .seconds(7200) { throw BenchError("the initial sync of \(files) files did not finish within 2 hours") }
            try await Task.sleep(for: .milliseconds(250))
        }
        let docsyncSeconds = SyncBench.seconds(ContinuousClock.now - started)
        _ = await sender.waitSettled()
        let peak = ["sender": highWater(sender.pid), "receiver": highWater(receiver.pid), "server": highWater(server.pid)]
        // Let the end of the sync (checkpoints, memory given back) pass before idle is read.
        try await Task.sleep(for: .seconds(10))
        let idle = ["sender": resident(sender.pid), "receiver": resident(receiver.pid), "server": resident(server.pid)]

        let index = try LocalIndex(url: base.appendingPathComponent("beta-state/folders/Scale/index.sqlite"))
        let predicate = try MetadataPredicate(parsing: "name LIKE '*.jpg'")
        var matches = 0
        let queryMilliseconds = QueryBench.median(try (0..<5).map { _ in try QueryBench.milliseconds { matches = try index.metadata(matching: predicate).count } })

        let change = try await SyncBench.createAndModify(samples: 10, from: sender, to: receiver).modify

        receiver.stop()
        receiver = try daemon("beta")
        let warm = try await restartTime(receiver)
        receiver.stop()
        var cold: Double?
        if dropPageCache() {
            receiver = try daemon("beta")
            cold = try await restartTime(receiver)
            receiver.stop()
        }
        sender.stop()

        let small = try await smallFolderChange(base: base.appendingPathComponent("small"), server: server)
        let rates = ratePerTenth(samples, total: items)
        return Size(files: files, directories: directories, bytes: bytes, makeTreeSeconds: makeTreeSeconds, rsyncSeconds: rsync,
                    docsyncSeconds: docsyncSeconds, ratePerTenth: rates, flatness: (rates.last ?? 0) / max(rates.first ?? 1, 1e-9),
                    peakMegabytes: peak, idleMegabytes: idle, restartWarmSeconds: warm, restartColdSeconds: cold,
                    queryMilliseconds: queryMilliseconds, queryMatches: matches, changeP50Milliseconds: change.p50,
                    smallFolderChangeP50Milliseconds: small.p50)
    }

    /// `files` files of 1–8 KiB of seeded random bytes, `filesPerDirectory` to a directory,
    /// one name in 100 a `.jpg`. Returns the directory count and the bytes written.
    static func makeTree(at root: URL, files: Int) throws -> (directories: Int, bytes: Int64) {
        var generator = SplitMix64(seed: 25)
        var bytes: Int64 = 0
        var buffer = [UInt64](repeating: 0, count: 1024)
        let directories = (files + filesPerDirectory - 1) / filesPerDirectory
        for index in 0..<files {
            let directory = root.appendingPathComponent(String(format: "d%05d", index / filesPerDirectory))
            if index % filesPerDirectory == 0 { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
            let path = directory.appendingPathComponent(String(format: "f%07d", index) + (index % 100 == 0 ? ".jpg" : ".dat")).path
            let size = 1024 + Int(generator.next() % 7169)
            for word in 0..<((size + 7) / 8) { buffer[word] = generator.next() }
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw BenchError("cannot create \(path): errno \(errno)") }
            let written = buffer.withUnsafeBytes { write(fd, $0.baseAddress!, size) }
            close(fd)
            guard written == size else { throw BenchError("cannot write \(path): errno \(errno)") }
            bytes += Int64(size)
        }
        return (directories, bytes)
    }

    /// Files per second over each tenth of `total` items, from the sampled counts, counted
    /// from the first sample that held any item (each boundary placed by interpolation).
    static func ratePerTenth(_ samples: [(seconds: Double, items: Int)], total: Int) -> [Double] {
        guard let first = samples.firstIndex(where: { $0.items > 0 }) else { return [] }
        let usable = Array(samples[first...])
        func time(reaching count: Double) -> Double {
            guard let after = usable.firstIndex(where: { Double($0.items) >= count }) else { return usable.last?.seconds ?? 0 }
            guard after > 0 else { return usable[after].seconds }
            let a = usable[after - 1], b = usable[after]
            let fraction = (count - Double(a.items)) / Double(max(1, b.items - a.items))
            return a.seconds + (b.seconds - a.seconds) * fraction
        }
        let start = usable[0], tenth = Double(total - start.items) / 10
        guard tenth > 0 else { return [] }
        var rates: [Double] = []
        var previous = start.seconds
        for k in 1...10 {
            let at = time(reaching: Double(start.items) + tenth * Double(k))
            rates.append(tenth / max(at - previous, 0.001))
            previous = at
        }
        return rates
    }

    /// Starts `daemon` (over a folder it has synced) and returns the seconds until it answers
    /// that every folder is settled.
    static func restartTime(_ daemon: BenchDaemon) async throws -> Double {
        let started = ContinuousClock.now
        try daemon.start()
        while !(await daemon.waitSettled(timeout: 600)) {
            if ContinuousClock.now - started > .seconds(1200) { throw BenchError("\(daemon.name) did not settle within 20 minutes of a restart") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return SyncBench.seconds(ContinuousClock.now - started)
    }

    /// Writes back and drops the page cache; false when this process may not.
    static func dropPageCache() -> Bool {
        sync()
        guard let handle = FileHandle(forWritingAtPath: "/proc/sys/vm/drop_caches") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("3\n".utf8))) != nil
    }

    /// The modify propagation p50 between two daemons on a folder of 100 files, through `server`.
    static func smallFolderChange(base: URL, server: BenchServer) async throws -> SyncBench.Propagation {
        let backend = ServerBench.url(server.port)
        let a = try BenchDaemon(name: "alpha", base: base, backend: backend, tokenFile: server.tokenFile, zone: "Small")
        let b = try BenchDaemon(name: "beta", base: base, backend: backend, tokenFile: server.tokenFile, zone: "Small")
        _ = try makeTree(at: a.folder, files: 100)
        try a.start()
        try b.start()
        defer { a.stop(); b.stop() }
        _ = await a.waitSettled()
        _ = try await b.waitUntilSettled(items: 100 + 100 / filesPerDirectory, since: .now)
        return try await SyncBench.createAndModify(samples: 10, from: a, to: b).modify
    }

    static func highWater(_ pid: Int32) -> Double { (MeasuredProcess.highWaterKilobytes(of: pid) ?? 0) / 1024 }

    static func resident(_ pid: Int32) -> Double { ((try? ProcessSample(pid: pid))?.residentBytes).map { Double($0) / 1e6 } ?? 0 }
}
