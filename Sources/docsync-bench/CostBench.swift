import DocSyncCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `docsync-bench --only cost` (issue 41): what an initial sync through `docsync-server` costs
/// each of its three processes, in CPU-seconds (user and system) per 1,000 files and per
/// 100 MB, in system calls per file, and in instructions under callgrind for a 2,000-file
/// sync (repeatable whatever else the machine does), with the data-path floor, `rsync -a`
/// and Unison's two local replicas measured on the same trees in the same run.
///
/// Given a baseline (the release build of another commit), every docsync figure is taken
/// for both builds in turn, A B A B, and the median of the rounds is reported.
///
/// Nothing is removed until the whole run is over: ext4 looks at every inode freed in the
/// last 30 seconds before it reuses one, and a receiver creating files just after a removal
/// paid several seconds of system time for it.
enum CostBench {
    /// A release build: `docsyncd` and `docsync-server` in `binaries`.
    struct Build {
        let label: String
        let binaries: URL
    }

    struct Tree {
        let name: String
        let root: URL
        let files: Int
        /// Items a daemon indexes: files and directories below the root.
        let items: Int
        let bytes: Int64
    }

    /// One process's share of a sync.
    struct ProcessCost: Encodable {
        let userSeconds: Double
        let systemSeconds: Double
        var cpuSeconds: Double { userSeconds + systemSeconds }
    }

    struct Sync: Encodable {
        let build: String
        let tree: String
        let files: Int
        let bytes: Int64
        /// From starting both daemons until the receiver holds everything and is settled (median).
        let seconds: Double
        /// By process (sender, server, receiver): the median of the rounds, by CPU-seconds.
        let processes: [String: ProcessCost]
        /// By process: system calls in a round of their own, counted by `perf stat`.
        let syscalls: [String: SyscallCount.Counts]
        /// Every round's total CPU-seconds (all three processes), in the order run.
        let roundTotals: [Double]

        var totalCPU: Double { processes.values.reduce(0) { $0 + $1.cpuSeconds } }
    }

    /// A program that is not docsync doing the same copy: the floor, `rsync -a`, Unison.
    struct Reference: Encodable {
        let name: String
        let tree: String
        let seconds: Double
        let userSeconds: Double
        let systemSeconds: Double
        let syscalls: Int?
        var cpuSeconds: Double { userSeconds + systemSeconds }
    }

    struct Instructions: Encodable {
        let build: String
        let files: Int
        /// Instructions (callgrind's `Ir`) by process: sender and receiver from their start,
        /// the server from the daemons' start, all until the receiver is settled.
        let byProcess: [String: Int]
        var total: Int { byProcess.values.reduce(0, +) }
    }

    struct Report: Encodable {
        let syncs: [Sync]
        let references: [Reference]
        let instructions: [Instructions]
        /// `rsync -a` of the callgrind tree under callgrind (all its processes).
        let rsyncInstructions: Int?
    }

    static let processNames = ["sender", "server", "receiver"]

    static func run(base: URL, builds: [Build], smallFiles: Int, rounds: Int, callgrindFiles: Int) async throws -> Report {
        let trees = try makeTrees(base: base.appendingPathComponent("trees"), smallFiles: smallFiles)
        var syncs: [Sync] = []
        var references: [Reference] = []
        for tree in trees {
            print("\n== \(tree.name): \(tree.files) files, \(String(format: "%.0f", Double(tree.bytes) / 1e6)) MB, through docsync-server ==")
            references += try referenceCopies(of: tree, base: base.appendingPathComponent("references-\(tree.name)"))
            var samples: [String: [[String: ProcessCost]]] = [:]
            var seconds: [String: [Double]] = [:]
            var totals: [String: [Double]] = [:]
            for round in 0..<rounds {
                for build in builds {
                    let run = base.appendingPathComponent("\(tree.name)-\(slug(build.label))-\(round)")
                    let measured = try await sync(tree, build: build, base: run, countCalls: false)
                    samples[build.label, default: []].append(measured.costs)
                    seconds[build.label, default: []].append(measured.seconds)
                    totals[build.label, default: []].append(measured.costs.values.reduce(0) { $0 + $1.cpuSeconds })
                    print(String(format: "  round %d, %@: %.2f s, CPU-s %@", round + 1, build.label, measured.seconds,
                                 processNames.map { String(format: "%@ %.2f", $0, measured.costs[$0]?.cpuSeconds ?? 0) }.joined(separator: ", ")))
                }
            }
            for build in builds {
                let run = base.appendingPathComponent("\(tree.name)-\(slug(build.label))-calls")
                let counted = try await sync(tree, build: build, base: run, countCalls: true)
                syncs.append(Sync(build: build.label, tree: tree.name, files: tree.files, bytes: tree.bytes,
                                  seconds: median(seconds[build.label] ?? []), processes: medianCosts(samples[build.label] ?? []),
                                  syscalls: counted.calls, roundTotals: totals[build.label] ?? []))
            }
            for line in table(tree: tree, syncs: syncs.filter { $0.tree == tree.name }, references: references.filter { $0.tree == tree.name }) {
                print(line)
            }
        }
        var instructions: [Instructions] = []
        var rsyncInstructions: Int?
        if callgrindFiles > 0, Callgrind.isInstalled {
            print("\n== Instructions under callgrind: an initial sync of \(callgrindFiles) small files ==")
            let root = base.appendingPathComponent("trees/callgrind")
            let made = try SyncBench.makeTree(at: root, smallFiles: callgrindFiles, directories: max(1, callgrindFiles / 20), largeFiles: 0, largeSize: 0)
            let tree = Tree(name: "callgrind", root: root, files: made.files, items: try countItems(root), bytes: made.bytes)
            let shim = try Callgrind.prepareShim(in: base.appendingPathComponent("callgrind-shim"))
            for build in builds {
                let directory = base.appendingPathComponent("callgrind-\(slug(build.label))")
                let stripped = Build(label: build.label, binaries: try Callgrind.strippedCopy(of: build.binaries, into: directory.appendingPathComponent("bin")))
                let measured = try await instructionsOfSync(tree, build: stripped, base: directory, shim: shim)
                instructions.append(measured)
                print("  \(build.label): " + processNames.map { "\($0) \(grouped(measured.byProcess[$0] ?? 0))" }.joined(separator: ", ")
                      + ", total \(grouped(measured.total)) (\(grouped(measured.total / max(1, tree.files))) per file)")
            }
            rsyncInstructions = try? Callgrind.rsync(tree.root, into: base.appendingPathComponent("callgrind-rsync"))
            if let rsyncInstructions {
                print("  rsync -a: \(grouped(rsyncInstructions)) (\(grouped(rsyncInstructions / max(1, tree.files))) per file)")
            }
            if instructions.count == 2 {
                print(String(format: "  %@ / %@: total %.2f×, ", instructions[0].build, instructions[1].build,
                             Double(instructions[0].total) / Double(max(1, instructions[1].total)))
                      + processNames.map { name in
                          String(format: "%@ %.2f×", name, Double(instructions[0].byProcess[name] ?? 0) / Double(max(1, instructions[1].byProcess[name] ?? 0)))
                      }.joined(separator: ", "))
            }
        } else if callgrindFiles > 0 {
            print("\n(valgrind is not installed: no instruction counts)")
        }
        return Report(syncs: syncs, references: references, instructions: instructions, rsyncInstructions: rsyncInstructions)
    }

    /// The 10,000 small files (1–8 KiB in 500 directories), and the `make bench` tree (the
    /// same plus 20 files of 10 MiB).
    static func makeTrees(base: URL, smallFiles: Int) throws -> [Tree] {
        var trees: [Tree] = []
        for (name, largeFiles) in [("small", 0), ("bench", 20)] {
            let root = base.appendingPathComponent(name)
            let made = try SyncBench.makeTree(at: root, smallFiles: smallFiles, directories: 500, largeFiles: largeFiles, largeSize: 10 << 20)
            trees.append(Tree(name: name, root: root, files: made.files, items: try countItems(root), bytes: made.bytes))
        }
        _ = try SyncBench.timed("sync", [])
        return trees
    }

    /// One initial sync of `tree` by `build`: a server and two daemons of their own under
    /// `base`; each process's CPU-seconds, and its system calls when `countCalls`.
    static func sync(_ tree: Tree, build: Build, base: URL, countCalls: Bool) async throws
        -> (seconds: Double, costs: [String: ProcessCost], calls: [String: SyscallCount.Counts]) {
        let (server, sender, receiver) = try prepare(tree, build: build, base: base)
        defer { server.stop() }
        let serverBefore = try ProcessSample(pid: server.pid)
        var counters: [String: SyscallCount] = [:]
        if countCalls { counters["server"] = SyscallCount(pid: server.pid, scratch: base) }
        let started = ContinuousClock.now
        try sender.start()
        try receiver.start()
        defer { sender.stop(); receiver.stop() }
        if countCalls {
            counters["sender"] = SyscallCount(pid: sender.pid, scratch: base)
            counters["receiver"] = SyscallCount(pid: receiver.pid, scratch: base)
        }
        try await waitUntilSynced(receiver, items: tree.items, since: started, pollEvery: .milliseconds(50))
        let seconds = SyncBench.seconds(ContinuousClock.now - started)
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var costs: [String: ProcessCost] = [:]
        for (name, pid) in [("sender", sender.pid), ("receiver", receiver.pid), ("server", server.pid)] {
            let sample = try ProcessSample(pid: pid)
            let before = name == "server" ? serverBefore : nil
            let user = sample.userTicks - (before?.userTicks ?? 0)
            let system = (sample.cpuTicks - sample.userTicks) - ((before?.cpuTicks ?? 0) - (before?.userTicks ?? 0))
            costs[name] = ProcessCost(userSeconds: Double(user) / ticks, systemSeconds: Double(system) / ticks)
        }
        let calls = counters.compactMapValues { $0.stop() }
        _ = try SyncBench.timed("diff", ["-r", "-q", "-x", IgnoreRules.rootMarkerName, tree.root.path, receiver.folder.path])
        return (seconds, costs, calls)
    }

    /// A server of `build` started under `base` and two of its daemons not yet started, the
    /// sender's folder holding a copy of `tree`, flushed; each process run under
    /// `wrapper(name)` (`server`, `sender`, `receiver`). The caller stops the server.
    static func prepare(_ tree: Tree, build: Build, base: URL, wrapper: (String) -> [String] = { _ in [] }) throws
        -> (server: BenchServer, sender: BenchDaemon, receiver: BenchDaemon) {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let server = try BenchServer(base: base, binaries: build.binaries, wrapper: wrapper("server"))
        try server.start()
        let backend = ServerBench.url(server.port)
        let daemons = try ["sender", "receiver"].map { name in
            try BenchDaemon(name: name, base: base, backend: backend, tokenFile: server.tokenFile, binaries: build.binaries, wrapper: wrapper(name))
        }
        try FileManager.default.removeItem(at: daemons[0].folder)
        _ = try SyncBench.timed("cp", ["-a", tree.root.path, daemons[0].folder.path])
        _ = try SyncBench.timed("sync", [])
        return (server, daemons[0], daemons[1])
    }

    /// Polls the receiver until it holds `items` items and is settled.
    static func waitUntilSynced(_ receiver: BenchDaemon, items: Int, since started: ContinuousClock.Instant, pollEvery interval: Duration,
                                statusTimeout: Duration = .seconds(5), limit: Duration = .seconds(1800)) async throws {
        while true {
            if let status = await receiver.status(timeout: statusTimeout), let folder = status.folders.first, folder.items == items, folder.isSettled { return }
            if ContinuousClock.now - started > limit { throw BenchError("the initial sync did not finish within \(limit)") }
            try await Task.sleep(for: interval)
        }
    }

    /// The same sync with the three processes under callgrind; the instructions each ran.
    static func instructionsOfSync(_ tree: Tree, build: Build, base: URL, shim: URL) async throws -> Instructions {
        let outputs = base.appendingPathComponent("callgrind")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        let (server, sender, receiver) = try prepare(tree, build: build, base: base) { name in
            Callgrind.wrapper(output: outputs.appendingPathComponent("\(name).out"), shim: shim)
        }
        defer { server.stop() }
        try Callgrind.control(["-z", String(server.pid)])
        let started = ContinuousClock.now
        try sender.start()
        try receiver.start()
        defer { sender.stop(); receiver.stop() }
        try await waitUntilSynced(receiver, items: tree.items, since: started, pollEvery: .seconds(1), statusTimeout: .seconds(120),
                                  limit: .seconds(3600))
        var counts: [String: Int] = [:]
        for (name, pid) in [("sender", sender.pid), ("server", server.pid), ("receiver", receiver.pid)] {
            try Callgrind.control(["-d", String(pid)])
            counts[name] = try Callgrind.instructions(inDumpOf: outputs.appendingPathComponent("\(name).out"))
        }
        _ = try SyncBench.timed("diff", ["-r", "-q", "-x", IgnoreRules.rootMarkerName, tree.root.path, receiver.folder.path])
        return Instructions(build: build.label, files: tree.files, byProcess: counts)
    }

    /// The data-path floor, `rsync -a` and Unison (two local replicas) on `tree`, each from
    /// a cold start with the tree in the page cache; their system calls in a second run.
    static func referenceCopies(of tree: Tree, base: URL) throws -> [Reference] {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        var references: [Reference] = []
        // The floor runs in this process: its CPU is this process's over the run, its calls
        // this process's while it runs (the benchmark's other threads are idle meanwhile).
        let calls = SyscallCount(pid: getpid(), scratch: base)
        let usageBefore = ownUsage()
        let floor = try DataPathFloor.run(source: tree.root, destination: base.appendingPathComponent("floor"), packs: base.appendingPathComponent("floor-packs"))
        let usageAfter = ownUsage()
        references.append(Reference(name: "floor", tree: tree.name, seconds: floor.seconds, userSeconds: usageAfter.user - usageBefore.user,
                                    systemSeconds: usageAfter.system - usageBefore.system, syscalls: calls?.stop()?.total))
        _ = try SyncBench.timed("sync", [])
        _ = try SyncBench.timed("diff", ["-r", "-q", tree.root.path, base.appendingPathComponent("floor").path])
        if let rsync = which("rsync") {
            references.append(try child(name: "rsync -a", tree: tree, base: base, executable: rsync,
                                        arguments: { ["-a", tree.root.path + "/", $0.path + "/"] }))
        }
        if let unison = which("unison") {
            let profiles = base.appendingPathComponent("unison-profiles")
            references.append(try child(name: "unison", tree: tree, base: base, executable: unison,
                                        arguments: { ["-batch", "-auto", "-silent", "-times", "-ui", "text", tree.root.path, $0.path] },
                                        environment: ["UNISON": profiles.path], makeTarget: true))
        }
        return references
    }

    /// A copy of `tree` by another program, timed (its CPU is what this process's waited-for
    /// children used meanwhile), then again under `perf stat` for its system calls.
    static func child(name: String, tree: Tree, base: URL, executable: String, arguments: (URL) -> [String],
                      environment: [String: String] = [:], makeTarget: Bool = false) throws -> Reference {
        func runOnce(_ target: URL, countingCalls: Bool) throws -> (seconds: Double, user: Double, system: Double, calls: Int?) {
            if makeTarget { try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true) }
            let output = base.appendingPathComponent("\(slug(name))-calls.csv")
            let process = Process()
            if countingCalls, let perf = SyscallCount.perfPath {
                process.executableURL = URL(fileURLWithPath: perf)
                process.arguments = ["stat", "-x", ",", "-o", output.path, "-e", "raw_syscalls:sys_enter", "--", executable] + arguments(target)
            } else {
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = arguments(target)
            }
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = FileHandle.nullDevice
            let before = childUsage()
            let started = ContinuousClock.now
            try process.runUntilExit()
            let seconds = SyncBench.seconds(ContinuousClock.now - started)
            let after = childUsage()
            guard process.terminationStatus == 0 else { throw BenchError("\(name) failed with \(process.terminationStatus)") }
            _ = try SyncBench.timed("sync", [])
            let calls = countingCalls ? (try? String(contentsOf: output, encoding: .utf8)).flatMap(SyscallCount.parse)?.total : nil
            return (seconds, after.user - before.user, after.system - before.system, calls)
        }
        let timed = try runOnce(base.appendingPathComponent("\(slug(name))-copy"), countingCalls: false)
        _ = try SyncBench.timed("diff", ["-r", "-q", tree.root.path, base.appendingPathComponent("\(slug(name))-copy").path])
        let counted = try runOnce(base.appendingPathComponent("\(slug(name))-counted"), countingCalls: true)
        return Reference(name: name, tree: tree.name, seconds: timed.seconds, userSeconds: timed.user, systemSeconds: timed.system, syscalls: counted.calls)
    }

    // MARK: - The table

    static func table(tree: Tree, syncs: [Sync], references: [Reference]) -> [String] {
        let thousands = Double(tree.files) / 1000
        let hundredMB = Double(tree.bytes) / 1e8
        func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }
        func row(_ label: String, _ process: String, user: Double, system: Double, calls: Int?) -> String {
            let cpu = user + system
            return pad(label, 12) + pad(process, 9) + String(format: "%8.2f %8.2f %8.2f %10.3f %9.3f %10@", user, system, cpu, cpu / thousands, cpu / hundredMB,
                                                               calls.map { String(format: "%.1f", Double($0) / Double(tree.files)) } ?? "-")
        }
        var lines = [pad("", 21) + "    user   system    CPU-s  /1k files   /100 MB calls/file"]
        for sync in syncs {
            var user = 0.0, system = 0.0, calls = 0
            for name in processNames {
                let cost = sync.processes[name] ?? ProcessCost(userSeconds: 0, systemSeconds: 0)
                user += cost.userSeconds
                system += cost.systemSeconds
                calls += sync.syscalls[name]?.total ?? 0
                lines.append(row(name == "sender" ? sync.build : "", name, user: cost.userSeconds, system: cost.systemSeconds, calls: sync.syscalls[name]?.total))
            }
            lines.append(row("", "total", user: user, system: system, calls: calls))
            lines.append(pad("", 12) + String(format: "wall %.2f s; each round's total CPU-s: ", sync.seconds)
                         + sync.roundTotals.map { String(format: "%.2f", $0) }.joined(separator: " "))
            for name in processNames {
                guard let counts = sync.syscalls[name] else { continue }
                lines.append(pad("", 12) + pad(name, 9) + "calls per file: "
                             + counts.top(8).map { "\($0.name) \(String(format: "%.2f", Double($0.calls) / Double(tree.files)))" }.joined(separator: ", "))
            }
        }
        for reference in references {
            lines.append(row(reference.name, "", user: reference.userSeconds, system: reference.systemSeconds, calls: reference.syscalls)
                         + String(format: "  wall %.2f s", reference.seconds))
        }
        if syncs.count == 2 {
            let (new, old) = (syncs[0], syncs[1])
            lines.append(String(format: "%@ / %@: total CPU %.2f×, ", new.build, old.build, new.totalCPU / max(0.001, old.totalCPU))
                         + processNames.map { name in
                             String(format: "%@ %.2f×", name, (new.processes[name]?.cpuSeconds ?? 0) / max(0.001, old.processes[name]?.cpuSeconds ?? 0))
                         }.joined(separator: ", ") + String(format: "; wall %.2f×", new.seconds / max(0.001, old.seconds)))
        }
        for sync in syncs {
            let ratios = references.filter { $0.name != "floor" }.map { String(format: "%.2f× %@", sync.seconds / max(0.001, $0.seconds), $0.name) }
            if !ratios.isEmpty { lines.append("\(sync.build): wall " + ratios.joined(separator: ", ")) }
        }
        return lines
    }

    // MARK: - Helpers

    static func medianCosts(_ rounds: [[String: ProcessCost]]) -> [String: ProcessCost] {
        var result: [String: ProcessCost] = [:]
        for name in processNames {
            let costs = rounds.compactMap { $0[name] }.sorted { $0.cpuSeconds < $1.cpuSeconds }
            if !costs.isEmpty { result[name] = costs[costs.count / 2] }
        }
        return result
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    static func countItems(_ root: URL) throws -> Int {
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { throw BenchError("cannot list \(root.path)") }
        var count = 0
        while enumerator.nextObject() != nil { count += 1 }
        return count
    }

    static func slug(_ label: String) -> String {
        String(label.map { $0.isLetter || $0.isNumber ? $0 : "-" })
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return out
    }

    static func which(_ program: String) -> String? {
        ["/usr/bin/", "/usr/local/bin/", "/bin/"].map { $0 + program }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func ownUsage() -> (user: Double, system: Double) { usage(RUSAGE_SELF) }
    static func childUsage() -> (user: Double, system: Double) { usage(RUSAGE_CHILDREN) }

    private static func usage(_ who: __rusage_who) -> (user: Double, system: Double) {
        var usage = rusage()
        getrusage(who.rawValue, &usage)
        return (Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
                Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6)
    }
}
