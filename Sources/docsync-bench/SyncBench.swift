import DocSyncCore
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
        var line: String {
            let rsync = rsyncSeconds.map { String(format: "%.2f s (docsync/rsync = %.2f×)", $0, docsyncSeconds / $0) } ?? "not installed"
            return String(format: "%d files, %.0f MB: docsync %.2f s (sender uploaded in %.2f s), rsync -a %@, cp -a %.2f s",
                          files, Double(bytes) / 1e6, docsyncSeconds, uploadSeconds, rsync, cpSeconds)
        }
    }

    static func propagation(samples: Int, base: URL) async throws -> Propagation {
        let backend = URL(fileURLWithPath: base.appendingPathComponent("backend").path)
        let a = try BenchDaemon(name: "alpha", base: base, backend: backend)
        let b = try BenchDaemon(name: "beta", base: base, backend: backend)
        try a.start()
        try b.start()
        defer { a.stop(); b.stop() }
        _ = await a.waitSettled()
        _ = await b.waitSettled()
        var generator = SplitMix64(seed: 4096)
        var results: [Double] = []
        for sample in 0..<samples {
            var bytes = [UInt8](repeating: 0, count: 4096)
            for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: generator.next()) }
            let content = Data(bytes)
            let name = "sample-\(sample).bin"
            let target = b.folder.appendingPathComponent(name).path
            let started = ContinuousClock.now
            try content.write(to: a.folder.appendingPathComponent(name))
            // Poll the receiving folder (every 0.2 ms) until the whole file is there.
            while true {
                var st = stat()
                if lstat(target, &st) == 0, st.st_size == 4096, FileManager.default.contents(atPath: target) == content { break }
                if ContinuousClock.now - started > .seconds(30) { throw BenchError("sample \(sample) did not arrive within 30 s") }
                usleep(200)
            }
            let elapsed = ContinuousClock.now - started
            results.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
            _ = await a.waitSettled()
            _ = await b.waitSettled()
        }
        return Propagation(samplesMilliseconds: results)
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
        return (smallFiles + largeFiles, bytes)
    }

    static func initialSync(base: URL, smallFiles: Int = 10_000, directories: Int = 500, largeFiles: Int = 20, largeSize: Int = 10 << 20) async throws -> InitialSync {
        let source = base.appendingPathComponent("source")
        let (files, bytes) = try makeTree(at: source, smallFiles: smallFiles, directories: directories, largeFiles: largeFiles, largeSize: largeSize)
        let rsync = try? timed("rsync", ["-a", source.path + "/", base.appendingPathComponent("rsync-copy").path + "/"])
        let cp = try timed("cp", ["-a", source.path, base.appendingPathComponent("cp-copy").path])

        let backend = URL(fileURLWithPath: base.appendingPathComponent("backend").path)
        let a = try BenchDaemon(name: "alpha", base: base, backend: backend)
        let b = try BenchDaemon(name: "beta", base: base, backend: backend)
        try FileManager.default.removeItem(at: a.folder)
        _ = try timed("cp", ["-a", source.path, a.folder.path])
        let expectedItems = files + directories + 1
        let started = ContinuousClock.now
        try a.start()
        try b.start()
        defer { a.stop(); b.stop() }
        var uploaded: Duration?
        while true {
            if uploaded == nil, let status = await a.status(), let folder = status.folders.first,
               folder.items == expectedItems, folder.pendingUploads == 0, folder.state == .idle {
                uploaded = ContinuousClock.now - started
            }
            if let status = await b.status(), let folder = status.folders.first, folder.items == expectedItems, folder.isSettled { break }
            if ContinuousClock.now - started > .seconds(1800) { throw BenchError("initial sync did not finish within 30 minutes") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let elapsed = ContinuousClock.now - started
        let check = try timed("diff", ["-r", "-q", source.path, b.folder.path])
        _ = check
        return InitialSync(files: files, bytes: bytes, docsyncSeconds: seconds(elapsed), uploadSeconds: seconds(uploaded ?? elapsed),
                           rsyncSeconds: rsync, cpSeconds: cp)
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
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("\(command) \(arguments.joined(separator: " ")) failed with \(process.terminationStatus)") }
        return seconds(ContinuousClock.now - started)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
