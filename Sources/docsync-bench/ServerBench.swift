import Foundation

/// The benchmarks of issue 5, in one run, with a `docsync-server` on loopback between
/// daemons: (a) propagation of a create and of a modify, (b) an initial sync against
/// `rsync -a`, (c) a 1-byte insertion in a 50 MiB file measured on the wire, and (d) an
/// idle daemon's memory and CPU over 100,000 files.
enum ServerBench {
    struct Insertion: Encodable {
        let fileBytes: Int
        /// Bytes the editing daemon put on the wire (requests) and got back (responses).
        let editorSent: Int
        let editorReceived: Int
        /// Bytes the receiving daemon sent and received while it caught up.
        let receiverSent: Int
        let receiverReceived: Int
        /// From the write until the other folder holds the new content.
        let convergeSeconds: Double

        var line: String {
            String(format: """
                50 MiB file, 1 byte inserted in the middle: converged in %.3f s
                  editor → server   %7.1f KiB sent, %7.1f KiB received (target ≤ 64 KiB sent: %@)
                  server → receiver %7.1f KiB received, %7.1f KiB sent
                """, convergeSeconds, Double(editorSent) / 1024, Double(editorReceived) / 1024,
                editorSent <= 64 * 1024 ? "met" : "NOT met", Double(receiverReceived) / 1024, Double(receiverSent) / 1024)
        }
    }

    struct Idle: Encodable {
        let files: Int
        let settleSeconds: Double
        let sampleSeconds: Double
        let residentMegabytes: Double
        let cpuPercent: Double

        var line: String {
            String(format: "%d files indexed and uploaded in %.1f s; idle over %.0f s: RSS %.1f MB (target ≤ 150), CPU %.2f %% (target ~0)",
                   files, settleSeconds, sampleSeconds, residentMegabytes, cpuPercent)
        }
    }

    struct Report: Encodable {
        let propagationCreate: SyncBench.Propagation
        let propagationModify: SyncBench.Propagation
        let initialSync: SyncBench.InitialSync
        let insertion: Insertion
        let idle: Idle
    }

    static func run(base: URL, samples: Int, initialFiles: Int, idleFiles: Int) async throws -> Report {
        let server = try BenchServer(base: base)
        try server.start()
        defer { server.stop() }
        print("docsync-server listening on 127.0.0.1:\(server.port)")

        print("\n== (a) Propagation between two daemons through docsync-server, \(samples) samples each ==")
        let pairBase = base.appendingPathComponent("pair")
        let editorProxy = try ByteCountingProxy(upstreamPort: server.port)
        let receiverProxy = try ByteCountingProxy(upstreamPort: server.port)
        defer { editorProxy.stop(); receiverProxy.stop() }
        // A 50 MiB file is 52.4 MB: over the default max_file_size of 50 MB.
        let larger = ["--max-file-size", "64MiB"]
        let a = try BenchDaemon(name: "alpha", base: pairBase, backend: url(editorProxy.port), tokenFile: server.tokenFile, zone: "Pair",
                                extraArguments: larger)
        let b = try BenchDaemon(name: "beta", base: pairBase, backend: url(receiverProxy.port), tokenFile: server.tokenFile, zone: "Pair",
                                extraArguments: larger)
        try a.start()
        try b.start()
        defer { a.stop(); b.stop() }
        _ = await a.waitSettled()
        _ = await b.waitSettled()
        // The parts before (the query's 100,000 files) leave much to write back: flushed first
        // (`sync`, untimed), so that writeback does not stand in the daemons' fsyncs.
        _ = try SyncBench.timed("sync", [])
        let (create, modify) = try await SyncBench.createAndModify(samples: samples, from: a, to: b)
        print("create: " + create.line)
        print("modify: " + modify.line)

        print("\n== (c) A 1-byte insertion in the middle of a 50 MiB file ==")
        let insertion = try await insertionInTheMiddle(from: a, to: b, editor: editorProxy, receiver: receiverProxy)
        print(insertion.line)
        a.stop()
        b.stop()

        print("\n== (b) Initial sync through docsync-server: \(initialFiles) files of 1–8 KiB in 500 directories + 20 × 10 MiB ==")
        let initial = try await SyncBench.initialSync(base: base.appendingPathComponent("initial"), smallFiles: initialFiles,
                                                      backend: url(server.port), tokenFile: server.tokenFile, serverPID: server.pid)
        print(initial.line)

        print("\n== (d) One daemon idle over \(idleFiles) files ==")
        let idle = try await idleDaemon(base: base.appendingPathComponent("idle"), files: idleFiles, server: server)
        print(idle.line)
        return Report(propagationCreate: create, propagationModify: modify, initialSync: initial, insertion: insertion, idle: idle)
    }

    static func url(_ port: UInt16) -> URL { URL(string: "http://127.0.0.1:\(port)")! }

    static func insertionInTheMiddle(from a: BenchDaemon, to b: BenchDaemon, editor: ByteCountingProxy,
                                     receiver: ByteCountingProxy) async throws -> Insertion {
        let size = 50 << 20
        let original = RandomBytes.generate(count: size, seed: 0x50)
        let source = a.folder.appendingPathComponent("large.bin")
        let target = b.folder.appendingPathComponent("large.bin")
        try original.write(to: source)
        try await waitFor(target, toHold: original)
        _ = await a.waitSettled()
        _ = await b.waitSettled()
        var edited = original
        edited.insert(0x2a, at: size / 2)
        let editorBefore = editor.totals, receiverBefore = receiver.totals
        let started = ContinuousClock.now
        try SyncBench.overwrite(source, with: edited)
        try await waitFor(target, toHold: edited)
        let converged = SyncBench.seconds(ContinuousClock.now - started)
        _ = await a.waitSettled()
        _ = await b.waitSettled()
        let editorAfter = editor.totals, receiverAfter = receiver.totals
        return Insertion(fileBytes: edited.count,
                         editorSent: editorAfter.sent - editorBefore.sent, editorReceived: editorAfter.received - editorBefore.received,
                         receiverSent: receiverAfter.sent - receiverBefore.sent,
                         receiverReceived: receiverAfter.received - receiverBefore.received,
                         convergeSeconds: converged)
    }

    /// Polls (every 5 ms, reading the content only once the size matches) until `url` holds `content`.
    static func waitFor(_ url: URL, toHold content: Data, timeout: Duration = .seconds(300)) async throws {
        let started = ContinuousClock.now
        while true {
            var st = stat()
            if lstat(url.path, &st) == 0, Int(st.st_size) == content.count, FileManager.default.contents(atPath: url.path) == content { return }
            if ContinuousClock.now - started > timeout { throw BenchError("\(url.lastPathComponent) did not arrive within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    static func idleDaemon(base: URL, files: Int, server: BenchServer) async throws -> Idle {
        let daemon = try BenchDaemon(name: "idle", base: base, backend: url(server.port), tokenFile: server.tokenFile, zone: "Idle")
        let directories = try QueryBench.makeFolder(daemon.folder, files: files)
        let started = ContinuousClock.now
        try daemon.start()
        defer { daemon.stop() }
        let settled = try await daemon.waitUntilSettled(items: files + directories, since: started, pollEvery: .milliseconds(200))
        // Let the last of start-up (checkpoints, freed pages) pass, then watch it sit idle.
        try await Task.sleep(for: .seconds(5))
        let window = 30.0
        let before = try ProcessSample(pid: daemon.pid)
        try await Task.sleep(for: .seconds(window))
        let after = try ProcessSample(pid: daemon.pid)
        let cpu = Double(after.cpuTicks - before.cpuTicks) / Double(sysconf(Int32(_SC_CLK_TCK))) / window * 100
        return Idle(files: files, settleSeconds: settled, sampleSeconds: window,
                    residentMegabytes: Double(max(before.residentBytes, after.residentBytes)) / 1e6, cpuPercent: cpu)
    }
}

/// A process's CPU time so far and resident memory, read from `/proc`.
struct ProcessSample {
    let cpuTicks: Int
    /// The part of `cpuTicks` spent in the process itself (the rest is the kernel's, for it).
    let userTicks: Int
    let residentBytes: Int

    init(pid: Int32) throws {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name (which may hold spaces) start after the last ')'.
        guard let close = stat.lastIndex(of: ")") else { throw BenchError("cannot read /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is the state (field 3); utime and stime are fields 14 and 15.
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw BenchError("cannot parse /proc/\(pid)/stat")
        }
        cpuTicks = user + system
        userTicks = user
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") else {
            throw BenchError("cannot read VmRSS of \(pid)")
        }
        residentBytes = kilobytes * 1024
    }
}
