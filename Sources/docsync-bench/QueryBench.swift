import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import Foundation

/// The query benchmark of issue 4: `docs-status query` over a daemon whose index holds
/// 100,000 items, the whole command's wall time and the query's own time (the same SQL,
/// in this process, on the daemon's index) reported apart from process start.
enum QueryBench {
    struct Query: Encodable {
        let predicate: String
        let matches: Int
        /// Median wall time of the whole `docs-status query … --json` command.
        let commandMilliseconds: Double
        /// Median time of the query itself on the index (SQLite, the matching rows read as
        /// the metadata the daemon answers with).
        let queryMilliseconds: Double
    }

    struct Report: Encodable {
        let items: Int
        /// How long the daemon took to index and upload the folder (the set-up).
        let initialSyncSeconds: Double
        /// Median wall time of `docs-status --help` (process start, no daemon call).
        let processStartMilliseconds: Double
        let queries: [Query]
    }

    static let predicates = ["name LIKE '*.pdf'", "size > 1MB AND modified > 2026-01-01"]

    static func run(base: URL, files: Int = 100_000, runs: Int = 11) async throws -> Report {
        let backend = URL(fileURLWithPath: base.appendingPathComponent("backend").path)
        let daemon = try BenchDaemon(name: "indexed", base: base, backend: backend)
        let directories = try makeFolder(daemon.folder, files: files)
        let started = ContinuousClock.now
        try daemon.start()
        defer { daemon.stop() }
        let initialSync = try await daemon.waitUntilSettled(items: files + directories, since: started)

        let statusTool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("docs-status")
        let processStart = median(try (0..<runs).map { _ in try milliseconds { _ = try run(statusTool, ["--help"]) } })
        let index = try LocalIndex(url: base.appendingPathComponent("indexed-state/folders/Bench/index.sqlite"))
        var queries: [Query] = []
        for text in predicates {
            let predicate = try MetadataPredicate(parsing: text)
            var matches = 0
            let queryTimes = try (0..<runs).map { _ in try milliseconds { matches = try index.metadata(matching: predicate).count } }
            var printed = 0
            let commandTimes = try (0..<runs).map { _ in
                try milliseconds { printed = try run(statusTool, ["query", text, "--json", "--socket", daemon.socket]) }
            }
            guard printed > 0 || matches == 0 else { throw BenchError("docs-status query printed nothing for \(text)") }
            queries.append(Query(predicate: text, matches: matches, commandMilliseconds: median(commandTimes), queryMilliseconds: median(queryTimes)))
        }
        return Report(items: files + directories, initialSyncSeconds: initialSync, processStartMilliseconds: processStart, queries: queries)
    }

    /// `files` small files in directories of 100: one in 50 a `.pdf`, one in 500 a sparse
    /// 2 MB file, modification times spread over 2025-06 … 2026-10. Returns the directory count.
    static func makeFolder(_ folder: URL, files: Int) throws -> Int {
        let directories = (files + 99) / 100
        var random = SplitMix64(seed: 7)
        let first = 1_748_736_000.0, last = 1_790_812_800.0  // 2025-06-01 … 2026-10-01
        for index in 0..<files {
            let directory = folder.appendingPathComponent(String(format: "dir-%04d", index / 100))
            if index % 100 == 0 { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
            let name = String(format: "file-%06d", index) + (index % 50 == 0 ? ".pdf" : index % 3 == 0 ? ".md" : ".txt")
            let path = directory.appendingPathComponent(name).path
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw BenchError("cannot create \(path)") }
            if index % 500 == 0 {
                ftruncate(fd, 2_000_000)
            } else {
                let text = "item \(index)\n"
                _ = text.withCString { write(fd, $0, strlen($0)) }
            }
            let seconds = first + (last - first) * Double(random.next() % 1_000_000) / 1_000_000
            var times = [timespec(tv_sec: Int(seconds), tv_nsec: 0), timespec(tv_sec: Int(seconds), tv_nsec: 0)]
            futimens(fd, &times)
            close(fd)
        }
        return directories
    }

    /// Runs a program to the end; returns the bytes it printed.
    static func run(_ executable: URL, _ arguments: [String]) throws -> Int {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let exit = ProcessExit(of: process)
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        exit.wait()
        guard process.terminationStatus == 0 else { throw BenchError("\(executable.lastPathComponent) \(arguments) exited with \(process.terminationStatus)") }
        return output.count
    }

    static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
        let started = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
