import ArgumentParser
import DocSyncCore
import DocSyncStorage
import Foundation

/// `make bench`: the chunker's throughput, the record codecs over 100,000 records, what a 1-byte edit of a 50 MB file costs, how
/// fast a small file reaches a second daemon, an initial sync against `rsync -a`, metadata
/// queries over 100,000 items, and the same sync figures with `docsync-server` between the
/// daemons (plus bytes on the wire and an idle daemon's footprint), and a garbage
/// collection of a million chunks. Prints tables and writes the figures as JSON.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docsync-bench",
        abstract: "Measure chunk+hash throughput and the cost of small edits to a large file.")

    @Option(help: "Size of the test file in bytes.")
    var size = 50_000_000

    @Option(help: "Repetitions of each throughput measurement (the median is reported).")
    var rounds = 5

    @Option(help: "Random edit positions measured per chunker configuration.")
    var edits = 40

    @Option(help: "Where to write the figures as JSON.")
    var json = ".build/bench/chunker.json"

    @Option(help: "Which parts to run: all, chunker, seal (the sealing costs alone, also part of chunker), codec, merge, sync, query, server, cluster, load, gc or scale (the last part of all: about 15 minutes and 20 GB of disk at 1,000,000 files); cost (not part of all: what a sync costs each process, beside a baseline build).")
    var only = "all"

    @Option(help: "Files in the folder the query benchmark indexes.")
    var queryFiles = 100_000

    @Option(help: "Where to write the query figures as JSON.")
    var queryJSON = ".build/bench/query.json"

    @Option(help: "Propagation samples (4 KiB files between two daemons).")
    var samples = 20

    @Option(help: "Small files in the initial-sync tree (in 500 directories, plus 20 files of 10 MiB).")
    var initialFiles = 10_000

    @Option(help: "Where to write the sync figures as JSON.")
    var syncJSON = ".build/bench/sync.json"

    @Option(help: "Files in the folder of the idle-daemon measurement (server part).")
    var idleFiles = 100_000

    @Option(help: "Where to write the server figures as JSON.")
    var serverJSON = ".build/bench/server.json"

    @Option(help: "Where to write the scale-out store's figures as JSON.")
    var clusterJSON = ".build/bench/cluster.json"

    @Option(help: "Simulated devices of the load test (ten per user, one zone per user).")
    var loadDevices = 200

    @Option(help: "Seconds each configuration of the load test runs (one instance; two behind HAProxy).")
    var loadSeconds = 20

    @Option(help: "Where to write the load test's figures as JSON.")
    var loadJSON = ".build/bench/load.json"

    @Option(help: "Chunks in the store the garbage-collection benchmark collects (half of them garbage).")
    var gcChunks = 1_000_000

    @Option(help: "Bytes of each of those chunks.")
    var gcChunkSize = 4096

    @Option(help: "Files in the folder whose half is deleted (gc part).")
    var gcFiles = 10_000

    @Option(help: "Where to write the garbage-collection figures as JSON.")
    var gcJSON = ".build/bench/gc.json"

    @Option(help: "Folder sizes of the scale part, in files, comma-separated.")
    var files = "100000,1000000"

    @Option(help: "Where to write the scale figures as JSON.")
    var scaleJSON = ".build/bench/scale.json"

    @Option(help: "Records encoded and decoded by each codec (codec part).")
    var codecRecords = 100_000

    @Option(help: "Where to write the codec figures as JSON.")
    var codecJSON = ".build/bench/codec.json"

    mutating func validate() throws {
        guard ["all", "chunker", "seal", "codec", "merge", "sync", "query", "server", "cluster", "load", "gc", "scale", "cost"].contains(only) else {
            throw ValidationError("--only takes all, chunker, seal, codec, merge, sync, query, server, cluster, load, gc, scale or cost")
        }
        guard costRounds >= 1, costFiles >= 500, costCallgrindFiles >= 0 else {
            throw ValidationError("--cost-rounds takes a positive number, --cost-files at least 500, --cost-callgrind-files 0 (none) or more")
        }
        if let baseline {
            let server = URL(fileURLWithPath: baseline).appendingPathComponent("docsync-server").path
            guard FileManager.default.isExecutableFile(atPath: server) else {
                throw ValidationError("--baseline names the release build directory of another commit (holding docsyncd and docsync-server); \(server) is not there. make bench-cost builds one.")
            }
        }
        guard codecRecords >= 1 else { throw ValidationError("--codec-records takes a positive number") }
        guard loadDevices >= 1, loadSeconds >= 1 else {
            throw ValidationError("--load-devices and --load-seconds take positive numbers")
        }
        guard !scaleSizes.isEmpty, scaleSizes.allSatisfy({ $0 >= 100 }) else {
            throw ValidationError("--files takes folder sizes of at least 100 files, comma-separated: --files 100000,1000000")
        }
    }

    @Option(help: "Small files in the cost part's trees (in 500 directories; the second tree adds 20 files of 10 MiB).")
    var costFiles = 10_000

    @Option(help: "Rounds of each cost measurement, every build in turn (the median is reported).")
    var costRounds = 3

    @Option(help: "Small files synced under callgrind for instruction counts (0: none).")
    var costCallgrindFiles = 2_000

    @Option(help: "The release build directory of a baseline commit (its docsyncd and docsync-server), measured beside this build in the cost part.")
    var baseline: String?

    @Option(help: "What to call the baseline in the cost part's tables.")
    var baselineLabel = "baseline"

    @Option(help: "Where to write the cost figures as JSON.")
    var costJSON = ".build/bench/cost.json"

    var scaleSizes: [Int] { files.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }

    mutating func run() async throws {
        // A line at a time also into a file or a pipe: a long part shows where it is. (C's
        // `stdout` is reached through its symbol: Swift 6 refuses the global variable.)
        if let symbol = dlsym(nil, "stdout") {
            setvbuf(symbol.assumingMemoryBound(to: UnsafeMutablePointer<FILE>?.self).pointee, nil, _IOLBF, 0)
        }
        // Every part's files stay until the whole run is over: removing tens of thousands of
        // files just before a part would slow that part's file creation (ext4 without a
        // journal skips inodes freed in the last 30 seconds, looking at each), for docsync,
        // rsync and cp alike but not evenly.
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("docsync-bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        if only == "all" || only == "chunker" { try await runChunker() }
        if only == "seal" { for line in SealCost.measure().lines { print(line) } }
        if only == "all" || only == "codec" { try runCodec() }
        if only == "all" || only == "merge" { try runMerge() }
        if only == "all" || only == "sync" { try await runSync(in: scratch.appendingPathComponent("sync")) }
        if only == "all" || only == "query" { try await runQuery(in: scratch.appendingPathComponent("query")) }
        if only == "all" || only == "server" { try await runServer(in: scratch.appendingPathComponent("server")) }
        if only == "all" || only == "cluster" { try await runCluster(in: scratch.appendingPathComponent("cluster")) }
        if only == "all" || only == "load" { try await runLoad(in: scratch.appendingPathComponent("load")) }
        if only == "all" || only == "gc" { try await runCollection(in: scratch.appendingPathComponent("gc")) }
        if only == "all" || only == "scale" { try await runScale(in: scratch.appendingPathComponent("scale")) }
        if only == "cost" { try await runCost(in: scratch.appendingPathComponent("cost")) }
    }

    func runCost(in base: URL) async throws {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        var builds = [CostBench.Build(label: "this build", binaries: BenchDaemon.ownBinaries)]
        if let baseline { builds.append(CostBench.Build(label: baselineLabel, binaries: URL(fileURLWithPath: baseline))) }
        print("== What an initial sync costs each process: " + builds.map { "\($0.label) (\($0.binaries.path))" }.joined(separator: " against ") + " ==")
        let report = try await CostBench.run(base: base, builds: builds, smallFiles: costFiles, rounds: costRounds, callgrindFiles: costCallgrindFiles)
        try write(report, to: costJSON)
    }

    func runScale(in base: URL) async throws {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        try write(try await ScaleBench.run(base: base, sizes: scaleSizes), to: scaleJSON)
    }

    func runCollection(in base: URL) async throws {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        print("\n== Garbage collection of an embedded store: \(gcChunks) chunks of \(gcChunkSize) bytes, half garbage ==")
        let collection = try await GCBench.collection(base: base, chunks: gcChunks, chunkSize: gcChunkSize)
        print(collection.line)
        print("\n== A folder of \(gcFiles) files on the backend, half deleted, after a retention of \(GCBench.retention) s ==")
        var folders: [GCBench.Folder] = []
        for everyOtherFile in [false, true] {
            folders.append(try await GCBench.folder(base: base, files: gcFiles, everyOtherFile: everyOtherFile))
            print(folders.last!.line)
        }
        struct Report: Encodable { let collection: GCBench.Collection; let folders: [GCBench.Folder] }
        try write(Report(collection: collection, folders: folders), to: gcJSON)
    }

    func runServer(in base: URL) async throws {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        print("\n== Two daemons and docsync-server on loopback ==")
        let report = try await ServerBench.run(base: base, samples: samples, initialFiles: initialFiles, idleFiles: idleFiles)
        try write(report, to: serverJSON)
    }

    func runCluster(in base: URL) async throws {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        print("\n== The scale-out store: PostgreSQL + S3 ==")
        try write(try await ClusterBench.run(base: base, samples: samples, initialFiles: initialFiles), to: clusterJSON)
    }

    func runLoad(in base: URL) async throws {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        print("\n== Load: simulated devices against one scale-out instance, then two behind HAProxy ==")
        try write(try await LoadBench.run(base: base, devices: loadDevices, seconds: loadSeconds), to: loadJSON)
    }

    func write(_ report: some Encodable, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: url)
        print("\nfigures written to \(path)")
    }

    func runQuery(in base: URL) async throws {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        print("\n== docs-status query over a daemon indexing \(queryFiles) files ==")
        let report = try await QueryBench.run(base: base, files: queryFiles)
        print(String(format: "%d items indexed and uploaded in %.1f s; docs-status process start (--help): %.1f ms",
                     report.items, report.initialSyncSeconds, report.processStartMilliseconds))
        for query in report.queries {
            print(String(format: "query %@: %d matches, whole command %.1f ms, the query itself %.1f ms",
                         query.predicate, query.matches, query.commandMilliseconds, query.queryMilliseconds))
        }
        try write(report, to: queryJSON)
    }

    func runSync(in base: URL) async throws {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        print("\n== Propagation between two daemons through the file:// backend ==")
        let propagation = try await SyncBench.propagation(samples: samples, base: base.appendingPathComponent("propagation"))
        print(propagation.line)
        print("\n== The same, the two daemons devices of an encrypted account (SPEC §13) ==")
        let sealedPropagation = try await SyncBench.propagation(samples: samples, base: base.appendingPathComponent("propagation-encrypted"), encrypted: true)
        print(sealedPropagation.line)
        print("\n== Initial sync: \(initialFiles) files of 1–8 KiB in 500 directories + 20 × 10 MiB ==")
        let initial = try await SyncBench.initialSync(base: base.appendingPathComponent("initial"), smallFiles: initialFiles)
        print(initial.line)
        print("\n== The same initial sync, encrypted ==")
        let sealed = try await SyncBench.initialSync(base: base.appendingPathComponent("initial-encrypted"), smallFiles: initialFiles, encrypted: true)
        print(sealed.line)
        let cpu = { (sync: SyncBench.InitialSync) in sync.cpuSeconds.values.reduce(0, +) }
        let user = { (sync: SyncBench.InitialSync) in sync.userSeconds.values.reduce(0, +) }
        print(String(format: "encrypted/plain: wall %.2f×, CPU %.2f× (%.2f s vs %.2f s; user %.2f×, %.2f s vs %.2f s), stored %.3f×, 4 KiB propagation p50 %.1f vs %.1f ms",
                     sealed.docsyncSeconds / initial.docsyncSeconds, cpu(sealed) / cpu(initial), cpu(sealed), cpu(initial),
                     user(sealed) / user(initial), user(sealed), user(initial),
                     Double(sealed.storedBytes ?? 0) / Double(max(1, initial.storedBytes ?? 1)), sealedPropagation.p50, propagation.p50))
        struct SyncReport: Encodable {
            let propagation: SyncBench.Propagation
            let initialSync: SyncBench.InitialSync
            let encryptedPropagation: SyncBench.Propagation
            let encryptedInitialSync: SyncBench.InitialSync
        }
        try write(SyncReport(propagation: propagation, initialSync: initial, encryptedPropagation: sealedPropagation, encryptedInitialSync: sealed), to: syncJSON)
    }

    func runChunker() async throws {
        print("docsync-bench: generating \(size) bytes of seeded random data…")
        let content = RandomBytes.generate(count: size, seed: 0x5eed)

        print("\n== Throughput, one core (median of \(rounds), min–max) ==")
        let throughput = Throughput.measure(content, rounds: rounds)
        for row in throughput.rows { print(row.line) }
        print(String(format: "chunk+hash reaches %.0f%% of the two-SHA-256-pass ceiling (%.0f MB/s)",
                     throughput.chunkAndHash / throughput.ceiling * 100, throughput.ceiling))
        print("\n== Sealing (SPEC §13), one core ==")
        for line in SealCost.measure().lines { print(line) }

        print("\n== 1-byte insertion in the middle of the \(size / 1_000_000) MB file, through the local backend ==")
        let middle = try await EditCost.insertionInTheMiddle(content)
        print(middle.line)

        print("\n== Chunker configurations: \(edits) random small edits each (insert or delete 1–8 bytes) ==")
        print(EditCost.Survey.header)
        var surveys: [EditCost.Survey] = []
        for parameters in EditCost.candidates {
            let survey = EditCost.survey(content, parameters: parameters, edits: edits)
            surveys.append(survey)
            print(survey.line)
        }

        try write(BenchReport(size: size, throughput: throughput.rows, insertionInTheMiddle: middle, survey: surveys), to: json)
    }
}

struct BenchReport: Encodable {
    let size: Int
    let throughput: [Throughput.Row]
    let insertionInTheMiddle: EditCost.Middle
    let survey: [EditCost.Survey]
}

enum RandomBytes {
    /// Seeded pseudo-random bytes (SplitMix64), the same on every run.
    static func generate(count: Int, seed: UInt64) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            var generator = SplitMix64(seed: seed)
            let words = raw.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = generator.next() }
            for index in (words.count * 8)..<count { raw[index] = UInt8(truncatingIfNeeded: index &* 131) }
        }
        return data
    }
}
