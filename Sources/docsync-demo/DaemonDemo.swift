import DocSyncStorage
import Foundation

/// Part two of `make demo`: a `docsync-server` on loopback and two real `docsyncd` processes
/// ("laptop" and "desktop", standing for two machines) on two folders — files created and
/// edited, a directory rename, `docs-status` of both, a conflict made while both were
/// stopped, a folder that vanishes (held, then back), a deleted file recovered from
/// Recently Deleted, a tablet keeping the folder on demand through FUSE (files listed, read
/// in part, fetched), a setting through a key-value store, a share with a second account and a
/// third account encrypted end to end. Everything it starts, it stops.
struct DaemonDemo {
    let base: URL
    let step = StepPrinter()

    /// One device: a `Documents` folder (the zone is named after it), its state, its socket.
    final class Device {
        let name: String
        let folder: URL
        let arguments: [String]
        let socket: String
        let stateDirectory: URL
        private var process: Process?
        private var exit: ProcessExit?

        /// `extra` adds daemon flags (`--share OWNER/ID` attaches the folder to a share).
        init(_ name: String, base: URL, backend: URL, tokenFile: URL, extra: [String] = []) throws {
            self.name = name
            folder = base.appendingPathComponent(name).appendingPathComponent("Documents")
            socket = "/tmp/docsync-demo-\(name)-\(UUID().uuidString.prefix(6)).sock"
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            arguments = ["--folder", folder.path, "--backend", backend.absoluteString, "--device", name,
                         "--token-file", tokenFile.path,
                         "--state-dir", base.appendingPathComponent("\(name)-state").path, "--socket", socket, "--log-level", "error",
                         // Each device's status page on a port of its own (as on two machines).
                         "--web-listen", "127.0.0.1:0"] + extra
            stateDirectory = base.appendingPathComponent("\(name)-state")
        }

        func start() throws {
            let process = Process()
            process.executableURL = DaemonDemo.sibling("docsyncd")
            process.arguments = arguments
            let exit = ProcessExit(of: process)
            try process.run()
            self.process = process
            self.exit = exit
        }

        /// SIGTERM; returns the exit status.
        func stop() -> Int32 {
            guard let process, process.isRunning else { return process?.terminationStatus ?? 0 }
            process.terminate()
            exit?.wait()
            return process.terminationStatus
        }

        func file(_ relative: String) -> URL { folder.appendingPathComponent(relative) }

        /// `docs-status` run against this device, its output; `quiet` drops what it says on
        /// stderr (a poll's "not yet").
        func docsStatus(_ arguments: [String], quiet: Bool = false) throws -> String {
            let process = Process()
            process.executableURL = DaemonDemo.sibling("docs-status")
            process.arguments = arguments + ["--socket", socket]
            let pipe = Pipe()
            process.standardOutput = pipe
            if quiet { process.standardError = FileHandle.nullDevice }
            let exit = ProcessExit(of: process)
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            exit.wait()
            return String(decoding: output, as: UTF8.self)
        }
    }

    static func sibling(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Polls until `condition` holds (or 30 s pass); returns the time it took.
    func until(_ condition: () -> Bool) async -> String {
        let started = ContinuousClock.now
        while !condition() {
            if ContinuousClock.now - started > .seconds(30) { return "not within 30 s" }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return DemoCommand.format(ContinuousClock.now - started)
    }

    func run() async throws {
        let server = try DemoServer(base: base)
        defer { server.stop() }
        step.title("8. docsync-server on loopback, data in \(server.data.path)")
        let url = try server.start()
        step.say("docsync-server user add demo → a token in \(server.tokenFile.lastPathComponent) (the server keeps only its hash)")
        step.say("docsync-server serve --data … --listen 127.0.0.1:0 → listening on \(url.absoluteString)")

        let laptop = try Device("laptop", base: base, backend: url, tokenFile: server.tokenFile)
        let desktop = try Device("desktop", base: base, backend: url, tokenFile: server.tokenFile)
        defer { _ = laptop.stop(); _ = desktop.stop() }
        let fm = FileManager.default

        step.title("9. Two daemons, laptop and desktop (two machines), each on its own Documents folder: \(base.path)")
        try laptop.start()
        try desktop.start()
        step.say("docsyncd \(laptop.arguments.joined(separator: " "))")
        try fm.createDirectory(at: laptop.file("Projects"), withIntermediateDirectories: true)
        try "Meeting notes\n".write(to: laptop.file("Projects/notes.txt"), atomically: false, encoding: .utf8)
        let arrived = await until { fm.contents(atPath: desktop.file("Projects/notes.txt").path) == Data("Meeting notes\n".utf8) }
        step.say("laptop writes Projects/notes.txt; it is on the desktop after \(arrived)")
        let files = ["Projects/plan.md": "# Plan\n- ship docsync\n", "Projects/budget.csv": "item,cost\nserver,0\n", "todo.txt": "call Ana\n"]
        for (path, text) in files.sorted(by: { $0.key < $1.key }) { try text.write(to: laptop.file(path), atomically: false, encoding: .utf8) }
        let allArrived = await until { files.allSatisfy { fm.contents(atPath: desktop.file($0.key).path) == Data($0.value.utf8) } }
        step.say("laptop creates \(files.keys.sorted().joined(separator: ", ")); all on the desktop after \(allArrived)")
        let appended = "Meeting notes\n- decided: weekly sync\n"
        try appended.write(to: laptop.file("Projects/notes.txt"), atomically: false, encoding: .utf8)
        let edited = await until { fm.contents(atPath: desktop.file("Projects/notes.txt").path) == Data(appended.utf8) }
        step.say("laptop edits Projects/notes.txt; the desktop has the new text after \(edited)")

        try fm.moveItem(at: desktop.file("Projects"), to: desktop.file("Archive"))
        let moved = await until { fm.fileExists(atPath: laptop.file("Archive/notes.txt").path) && !fm.fileExists(atPath: laptop.file("Projects").path) }
        step.say("desktop renames Projects to Archive; the laptop follows after \(moved) (a record update: no content travels)")

        for (letter, device) in zip(["a", "b"], [laptop, desktop]) {
            step.title("10\(letter). docs-status on the \(device.name)")
            _ = try device.docsStatus(["wait", "--timeout", "30"])
            for line in try device.docsStatus([]).split(separator: "\n") { step.say(String(line)) }
        }

        step.title("11. Both stopped, the same files edited on each, both started again")
        step.say("laptop exits with \(laptop.stop()), desktop with \(desktop.stop()) (SIGTERM)")
        try "laptop's version\n".write(to: laptop.file("Archive/notes.txt"), atomically: false, encoding: .utf8)
        try "desktop's version\n".write(to: desktop.file("Archive/notes.txt"), atomically: false, encoding: .utf8)
        // Different lines of a Markdown file: merged, not duplicated.
        try "# Plan\n- ship docsync\n- write the docs\n".write(to: laptop.file("Archive/plan.md"), atomically: false, encoding: .utf8)
        try "# Plan for May\n- ship docsync\n".write(to: desktop.file("Archive/plan.md"), atomically: false, encoding: .utf8)
        step.say("notes.txt: each rewrote its one line; plan.md: the laptop added a line at the end, the desktop retitled it")
        try laptop.start()
        try desktop.start()
        func notes(_ device: Device) -> Int {
            ((try? fm.contentsOfDirectory(atPath: device.file("Archive").path)) ?? []).filter { $0.hasPrefix("notes") }.count
        }
        let resolved = await until { notes(laptop) == 2 && notes(desktop) == 2 }
        step.say("settled after \(resolved); both folders now hold:")
        for name in ((try? fm.contentsOfDirectory(atPath: desktop.file("Archive").path)) ?? []).sorted() where name.hasPrefix("notes") {
            let text = (try? String(contentsOf: desktop.file("Archive/\(name)"), encoding: .utf8)) ?? ""
            step.say("  Archive/\(name): \(text.trimmingCharacters(in: .newlines))")
        }
        step.say("nothing is lost: the server's version stays in place, the other is kept beside it")
        let merged = "# Plan for May\n- ship docsync\n- write the docs\n"
        let planMerged = await until { [laptop, desktop].allSatisfy { fm.contents(atPath: $0.file("Archive/plan.md").path) == Data(merged.utf8) } }
        step.say("Archive/plan.md was merged line by line after \(planMerged), no copy; both folders hold:")
        for line in merged.split(separator: "\n") { step.say("  " + String(line)) }

        step.title("12. docs-status conflicts, a metadata query, the version store and resolve on the desktop; the conflict log on both")
        _ = try desktop.docsStatus(["wait", "--timeout", "30"])
        func show(_ arguments: [String], on device: Device) throws {
            step.say("$ docs-status " + arguments.map { !$0.contains(" ") ? $0 : $0.contains("'") ? "\"\($0)\"" : "'\($0)'" }.joined(separator: " ")
                + "   (on the \(device.name))")
            for line in try device.docsStatus(arguments).split(separator: "\n") { step.say("  " + String(line)) }
        }
        for arguments in [["conflicts"], ["query", "name LIKE '*.txt' AND size < 1MB"], ["versions", desktop.file("Archive/notes.txt").path],
                          ["resolve", desktop.file("Archive/notes.txt").path, "--keep", "local"], ["conflicts"]] {
            try show(arguments, on: desktop)
        }
        // Each device logs the conflicts its own engine met: the one that found the other's
        // edits on the server merged plan.md and made the copy; the desktop resolved it.
        _ = try laptop.docsStatus(["wait", "--timeout", "30"])
        for device in [laptop, desktop] { try show(["conflicts", "--log"], on: device) }

        step.title("13. The desktop's folder vanishes, as an unmounted disk's does: it is held, not emptied everywhere")
        let away = base.appendingPathComponent("desktop/Documents (disk unmounted)")
        try fm.moveItem(at: desktop.folder, to: away)
        let held = await until { ((try? desktop.docsStatus(["--json"])) ?? "").contains("\"held\"") }
        step.say("desktop's Documents moved away; the desktop shows it held after \(held):")
        for line in try desktop.docsStatus([]).split(separator: "\n") where line.hasPrefix("Documents") { step.say("  " + String(line)) }
        step.say("the laptop still holds all \(((try? fm.subpathsOfDirectory(atPath: laptop.folder.path)) ?? []).filter { !$0.hasPrefix(".") }.count) items")
        try fm.moveItem(at: away, to: desktop.folder)
        let resumed = await until { ((try? desktop.docsStatus(["wait", "--timeout", "5"])) ?? "").hasPrefix("settled") }
        step.say("the folder is back; the desktop resumes by itself after \(resumed)")

        step.title("14. Recently Deleted: the laptop deletes todo.txt, the desktop brings it back")
        try fm.removeItem(at: laptop.file("todo.txt"))
        let gone = await until { !fm.fileExists(atPath: desktop.file("todo.txt").path) }
        step.say("gone from the desktop after \(gone)")
        for arguments in [["deleted"], ["recover", desktop.file("todo.txt").path]] {
            step.say("$ docs-status " + arguments.joined(separator: " "))
            for line in try desktop.docsStatus(arguments).split(separator: "\n") { step.say("  " + String(line)) }
        }
        let back = await until { fm.contents(atPath: laptop.file("todo.txt").path) == Data("call Ana\n".utf8) }
        step.say("todo.txt is on the laptop again after \(back)")

        try await statusPage(laptop)

        let tablet = try await filesOnDemand(laptop: laptop, server: server, url: url)
        defer { _ = tablet?.stop() }
        let ana = try await shareWithAnotherAccount(from: laptop, server: server, url: url)
        defer { _ = ana.stop() }
        try await keyValueSetting(laptop: laptop, desktop: desktop)
        let bea = try await encryptedAccount(server: server, url: url)
        defer { for device in bea { _ = device.stop() } }

        step.title("18. Everything this demo started stops")
        step.say("laptop exits with \(laptop.stop()), desktop with \(desktop.stop()), \(tablet.map { "the tablet with \($0.stop()), " } ?? "")ana's laptop with \(ana.stop()), "
                 + "bea's laptop with \(bea[0].stop()) and desktop with \(bea[1].stop()), docsync-server with \(server.stop()) (SIGTERM)")
    }
}
