import DocSyncCore
import DocSyncStorage
import Foundation

/// The sync benchmarks of issue 3: how fast a small file reaches another daemon, and how
/// an initial sync of a large tree compares with `rsync -a` and `cp -a` in the same run.
enum SyncBench {
    struct Propagation: Encodable {
        let samplesMilliseconds: [Double]
        var p50: Double { percentile(0.5) }
        var p90: Double { percentile(0.9) }
        var max: Double { samplesMilliseconds.max() ?? 0 }

        func percentile(_ p: Double) -> Double {
            let sorted = samplesMilliseconds.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }

        var line: String { String(format: "4 KiB file, %d samples: p50 %.1f ms, p90 %.1f ms, max %.1f ms", samplesMilliseconds.count, p50, p90, max) }

        enum CodingKeys: String, CodingKey { case samplesMilliseconds, p50, p90, max }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(samplesMilliseconds, forKey: .samplesMilliseconds)
            try container.encode(p50, forKey: .p50)
            try container.encode(p90, forKey: .p90)
            try container.encode(max, forKey: .max)
        }
    }

    struct InitialSync: Encodable {
        let files: Int
        let bytes: Int64
        let docsyncSeconds: Double
        let uploadSeconds: Double
        let rsyncSeconds: Double?
        let cpSeconds: Double
        /// `DataPathFloor` on the same tree: the spec's unavoidable work alone.
        let floor: DataPathFloor.Result
        /// CPU seconds (user + system) each process spent on the sync: the two daemons from
        /// their start, the server (when there is one) over the sync.
        let cpuSeconds: [String: Double]
        /// The user-space part of `cpuSeconds` (the rest is system time: mostly file and
        /// page-cache work, which varies with the disk more than with the code).
        let userSeconds: [String: Double]
        /// The bytes the `file://` backend's directory holds after the sync (`nil` for a server).
        let storedBytes: Int64?
        var line: String {
            let rsync = rsyncSeconds.map { String(format: "%.2f s (docsync/rsync = %.2f×)", $0, docsyncSeconds / $0) } ?? "not installed"
            let floorRatio = rsyncSeconds.map { String(format: ", floor/rsync = %.2f×", floor.seconds / $0) } ?? ""
            let total = cpuSeconds.values.reduce(0, +)
            return String(format: "%d files, %.0f MB: docsync %.2f s (sender uploaded in %.2f s), rsync -a %@, cp -a %.2f s\n"
                          + "data-path floor (chunk, hash, pack, verify, write; no index): %.2f s, %.2f s CPU (docsync/floor = %.2f×%@)\n"
                          + "CPU s: %@ (total %.2f s: at least %.2f s on this machine's %d cores)%@",
                          files, Double(bytes) / 1e6, docsyncSeconds, uploadSeconds, rsync, cpSeconds,
                          floor.seconds, floor.cpuSeconds, docsyncSeconds / floor.seconds, floorRatio,
                          cpuSeconds.sorted(by: { $0.key < $1.key }).map { String(format: "%@ %.2f (user %.2f)", $0.key, $0.value, userSeconds[$0.key] ?? 0) }
                            .joined(separator: ", "),
                          total, total / Double(Self.cores), Self.cores,
                          storedBytes.map { String(format: "\nthe backend stores %.1f MB", Double($0) / 1e6) } ?? "")
        }

        static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }
    }

    /// `encrypted`: the two daemons are trusted devices of an encrypted account (SPEC §13).
    static func propagation(samples: Int, base: URL, encrypted: Bool = false) async throws -> Propagation {
        let backend = URL(fileURLWithPath: base.appendingPathComponent("backend").path)
        if encrypted { try await seed(backend: backend, base: base) }
        let a = try BenchDaemon(name: "alpha", base: base, backend: backend)
        let b = try BenchDaemon(name: "beta", base: base, backend: backend)
        try a.start()
        try b.start()
        defer { a.stop(); b.stop() }
        _ = await a.waitSettled()
        _ = await b.waitSettled()
        return try await createAndModify(samples: samples, from: a, to: b).create
    }

    /// `samples` new 4 KiB files written in `a`, each timed until it is whole in `b`; then
    /// each of them overwritten in place with new content, timed the same way.
    static func createAndModify(samples: Int, from a: BenchDaemon, to b: BenchDaemon) async throws -> (create: Propagation, modify: Propagation) {
        var generator = SplitMix64(seed: 4096)
        func content() -> Data {
            var bytes = [UInt8](repeating: 0, count: 4096)
            for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: generator.next()) }
            return Data(bytes)
        }
        var created: [Double] = [], modified: [Double] = []
        for sample in 0..<samples {
            let name = "sample-\(sample).bin"
            created.append(try await timeArrival(of: content(), writtenTo: a.folder.appendingPathComponent(name),
                                                 at: b.folder.appendingPathComponent(name)))
            _ = await a.waitSettled()
            _ = await b.waitSettled()
        }
        for sample in 0..<samples {
            let name = "sample-\(sample).bin"
            modified.append(try await timeArrival(of: content(), writtenTo: a.folder.appendingPathComponent(name),
                                                  at: b.folder.appendingPathComponent(name)))
            _ = await a.waitSettled()
            _ = await b.waitSettled()
        }
        return (Propagation(samplesMilliseconds: created), Propagation(samplesMilliseconds: modified))
    }

    /// Writes `content` to `source` (in place: open, truncate, write, close) and polls `target`
    /// every 0.2 ms until it holds that content; returns the milliseconds in between.
    static func timeArrival(of content: Data, writtenTo source: URL, at target: URL) async throws -> Double {
        let started = ContinuousClock.now
        try overwrite(source, with: content)
        while true {
            var st = stat()
            if lstat(target.path, &st) == 0, Int(st.st_size) == content.count, FileManager.default.contents(atPath: target.path) == content { break }
            if ContinuousClock.now - started > .seconds(30) { throw BenchError("\(target.lastPathComponent) did not arrive within 30 s") }
            usleep(200)
        }
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
    }

    /// Replaces the content of `url` in place, as an editor saving without a temporary file does.
    static func overwrite(_ url: URL, with content: Data) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw BenchError("cannot open \(url.path): errno \(errno)") }
        defer { close(fd) }
        try content.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                guard written > 0 else { throw BenchError("cannot write \(url.path): errno \(errno)") }
                offset += written
            }
        }
    }

    /// 10,000 files of 1–8 KiB in 500 directories plus 20 files of 10 MiB.
    static func makeTree(at root: URL, smallFiles: Int, directories: Int, largeFiles: Int, largeSize: Int) throws -> (files: Int, bytes: Int64) {
        var generator = SplitMix64(seed: 10_000)
        var bytes: Int64 = 0
        for d in 0..<directories {
            let directory = root.appendingPathComponent("dir-\(d)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for f in 0..<(smallFiles / directories) {
                let size = 1024 + Int(generator.next() % 7169)
                var content = [UInt8](repeating: 0, count: size)
                for i in stride(from: 0, to: size, by: 8) {
                    let word = generator.next()
                    for j in 0..<min(8, size - i) { content[i + j] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(j))) }
                }
                try Data(content).write(to: directory.appendingPathComponent("file-\(f).dat"))
                bytes += Int64(size)
            }
        }
        let large = root.appendingPathComponent("large")
        try FileManager.default.createDirectory(at: large, withIntermediateDirectories: true)
        for l in 0..<largeFiles {
            try RandomBytes.generate(count: largeSize, seed: UInt64(l + 1)).write(to: large.appendingPathComponent("large-\(l).bin"))
            bytes += Int64(largeSize)
        }
        // Small files are spread evenly: a count that does not divide by `directories` is rounded down.
        return ((smallFiles / directories) * directories + largeFiles, bytes)
    }

    /// Times two daemons (`backend`: the embedded backend under `base` when `nil`) bringing a
    /// new tree from one folder to the other, and `rsync -a`, `cp -a` and `DataPathFloor` of
    /// that tree.
    /// `encrypted`: the daemons are trusted devices of an encrypted account (SPEC §13).
    static func initialSync(base: URL, smallFiles: Int = 10_000, directories: Int = 500, largeFiles: Int = 20, largeSize: Int = 10 << 20,
                            backend serverURL: URL? = nil, tokenFile: URL? = nil, serverPID: Int32? = nil,
                            encrypted: Bool = false) async throws -> InitialSync {
        let source = base.appendingPathComponent("source")
        let (files, bytes) = try makeTree(at: source, smallFiles: smallFiles, directories: directories, largeFiles: largeFiles, largeSize: largeSize)
        // Each contender starts with nothing of the others' left to write back: the data
        // written before it is flushed (`sync`, untimed), so no one pays for another's writes.
        _ = try timed("sync", [])
        let rsync = try? timed("rsync", ["-a", source.path + "/", base.appendingPathComponent("rsync-copy").path + "/"])
        _ = try timed("sync", [])
        let cp = try timed("cp", ["-a", source.path, base.appendingPathComponent("cp-copy").path])
        _ = try timed("sync", [])
        let floorCopy = base.appendingPathComponent("floor-copy")
        let floor = try DataPathFloor.run(source: source, destination: floorCopy, packs: base.appendingPathComponent("floor-packs"))
        _ = try timed("sync", [])
        _ = try timed("diff", ["-r", "-q", source.path, floorCopy.path])  // a floor that copied wrong would mean nothing

        let backend = serverURL ?? URL(fileURLWithPath: base.appendingPathComponent("backend").path)
        if encrypted {
            guard serverURL == nil else { throw BenchError("the encrypted initial sync runs on the file:// backend") }
            try await seed(backend: backend, base: base)
        }
        let a = try BenchDaemon(name: "alpha", base: base, backend: backend, tokenFile: tokenFile)
        let b = try BenchDaemon(name: "beta", base: base, backend: backend, tokenFile: tokenFile)
        try FileManager.default.removeItem(at: a.folder)
        _ = try timed("cp", ["-a", source.path, a.folder.path])
        _ = try timed("sync", [])
        let expectedItems = files + directories + 1
        let serverBefore = serverPID.flatMap { try? ProcessSample(pid: $0) }
        let started = ContinuousClock.now
        try a.start()
        try b.start()
        defer { a.stop(); b.stop() }
        var uploaded: Duration?
        // The receiver is asked every 20 ms: its answer ends the timing. The sender is asked
        // every 100 ms, only for the time its uploads took: each status costs the daemon a
        // count over its index, and asking the sender as often cost it 3 % of its CPU.
        var polls = 0
        while true {
            if uploaded == nil, polls % 5 == 0, let status = await a.status(), let folder = status.folders.first,
               folder.items == expectedItems, folder.pendingUploads == 0, folder.state == .idle {
                uploaded = ContinuousClock.now - started
            }
            polls += 1
            if let status = await b.status(), let folder = status.folders.first, folder.items == expectedItems, folder.isSettled { break }
            if ContinuousClock.now - started > .seconds(1800) { throw BenchError("initial sync did not finish within 30 minutes") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let elapsed = ContinuousClock.now - started
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var cpu: [String: Double] = [:], user: [String: Double] = [:]
        for (name, pid) in [("sender", a.pid), ("receiver", b.pid)] {
            guard let sample = try? ProcessSample(pid: pid) else { continue }
            cpu[name] = Double(sample.cpuTicks) / ticks
            user[name] = Double(sample.userTicks) / ticks
        }
        if let serverPID, let before = serverBefore, let after = try? ProcessSample(pid: serverPID) {
            cpu["server"] = Double(after.cpuTicks - before.cpuTicks) / ticks
            user["server"] = Double(after.userTicks - before.userTicks) / ticks
        }
        // The receiver's root marker is its own, never synced.
        let check = try timed("diff", ["-r", "-q", "-x", IgnoreRules.rootMarkerName, source.path, b.folder.path])
        _ = check
        let stored = serverURL == nil ? directoryBytes(backend) : nil
        return InitialSync(files: files, bytes: bytes, docsyncSeconds: seconds(elapsed), uploadSeconds: seconds(uploaded ?? elapsed),
                           rsyncSeconds: rsync, cpSeconds: cp, floor: floor, cpuSeconds: cpu, userSeconds: user, storedBytes: stored)
    }

    /// An encrypted account whose devices alpha and beta (under `base`) are both trusted.
    static func seed(backend: URL, base: URL) async throws {
        try FileManager.default.createDirectory(at: backend, withIntermediateDirectories: true)
        try await EncryptedAccountSeed.prepare(backend: backend, devices: ["alpha", "beta"].map { ($0, base.appendingPathComponent("\($0)-state")) })
    }

    /// The bytes of every file under `directory`.
    static func directoryBytes(_ directory: URL) -> Int64 {
        var total: Int64 = 0
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]), values.isRegularFile == true else { continue }
            total += Int64(values.fileSize ?? 0)
        }
        return total
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Runs a command to completion; returns its wall time in seconds, or throws when it fails.
    static func timed(_ command: String, _ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        let started = ContinuousClock.now
        // Waiting does not spin a core beside the command (see `ProcessExit`).
        try process.runUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("\(command) \(arguments.joined(separator: " ")) failed with \(process.terminationStatus)") }
        return seconds(ContinuousClock.now - started)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
