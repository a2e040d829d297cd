import Foundation

/// Part two of `make demo`: two real `docsyncd` processes ("laptop" and "desktop") on two
/// folders sharing one embedded backend — a file, a directory rename, `docs-status`, and a
/// conflict made while both were stopped.
struct DaemonDemo {
    let base: URL
    let step = StepPrinter()

    /// One device: a `Documents` folder (the zone is named after it), its state, its socket.
    final class Device {
        let name: String
        let folder: URL
        let arguments: [String]
        let socket: String
        private var process: Process?

        init(_ name: String, base: URL, backend: URL) throws {
            self.name = name
            folder = base.appendingPathComponent(name).appendingPathComponent("Documents")
            socket = "/tmp/docsync-demo-\(name)-\(UUID().uuidString.prefix(6)).sock"
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            arguments = ["--folder", folder.path, "--backend", backend.absoluteString, "--device", name,
                         "--state-dir", base.appendingPathComponent("\(name)-state").path, "--socket", socket, "--log-level", "error"]
        }

        func start() throws {
            let process = Process()
            process.executableURL = DaemonDemo.sibling("docsyncd")
            process.arguments = arguments
            try process.run()
            self.process = process
        }

        /// SIGTERM; returns the exit status.
        func stop() -> Int32 {
            guard let process, process.isRunning else { return process?.terminationStatus ?? 0 }
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }

        func file(_ relative: String) -> URL { folder.appendingPathComponent(relative) }

        /// `docs-status` run against this device, its output.
        func docsStatus(_ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = DaemonDemo.sibling("docs-status")
            process.arguments = arguments + ["--socket", socket]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
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
        let backend = URL(fileURLWithPath: base.appendingPathComponent("backend").path)
        let laptop = try Device("laptop", base: base, backend: backend)
        let desktop = try Device("desktop", base: base, backend: backend)
        defer { _ = laptop.stop(); _ = desktop.stop() }
        let fm = FileManager.default

        step.title("8. Two daemons, laptop and desktop, each on its own Documents folder: \(base.path)")
        try laptop.start()
        try desktop.start()
        step.say("docsyncd \(laptop.arguments.joined(separator: " "))")
        try fm.createDirectory(at: laptop.file("Projects"), withIntermediateDirectories: true)
        try "Meeting notes\n".write(to: laptop.file("Projects/notes.txt"), atomically: false, encoding: .utf8)
        let arrived = await until { fm.contents(atPath: desktop.file("Projects/notes.txt").path) == Data("Meeting notes\n".utf8) }
        step.say("laptop writes Projects/notes.txt; it is on the desktop after \(arrived)")

        try fm.moveItem(at: desktop.file("Projects"), to: desktop.file("Archive"))
        let moved = await until { fm.fileExists(atPath: laptop.file("Archive/notes.txt").path) && !fm.fileExists(atPath: laptop.file("Projects").path) }
        step.say("desktop renames Projects to Archive; the laptop follows after \(moved) (a record update: no content travels)")

        step.title("9. docs-status on the laptop")
        _ = try laptop.docsStatus(["wait", "--timeout", "30"])
        for line in try laptop.docsStatus([]).split(separator: "\n") { step.say(String(line)) }

        step.title("10. Both stopped, the same file edited on each, both started again")
        step.say("laptop exits with \(laptop.stop()), desktop with \(desktop.stop()) (SIGTERM)")
        try "laptop's version\n".write(to: laptop.file("Archive/notes.txt"), atomically: false, encoding: .utf8)
        try "desktop's version\n".write(to: desktop.file("Archive/notes.txt"), atomically: false, encoding: .utf8)
        try laptop.start()
        try desktop.start()
        let resolved = await until { ((try? fm.contentsOfDirectory(atPath: laptop.file("Archive").path)) ?? []).count == 2
            && ((try? fm.contentsOfDirectory(atPath: desktop.file("Archive").path)) ?? []).count == 2 }
        step.say("settled after \(resolved); both folders now hold:")
        for name in ((try? fm.contentsOfDirectory(atPath: desktop.file("Archive").path)) ?? []).sorted() {
            let text = (try? String(contentsOf: desktop.file("Archive/\(name)"), encoding: .utf8)) ?? ""
            step.say("  Archive/\(name): \(text.trimmingCharacters(in: .newlines))")
        }
        step.say("nothing is lost: the server's version stays in place, the other is kept beside it")

        step.title("11. docs-status conflicts, a metadata query and the version store, on the desktop")
        _ = try desktop.docsStatus(["wait", "--timeout", "30"])
        for arguments in [["conflicts"], ["query", "name LIKE '*.txt' AND size < 1MB"], ["versions", desktop.file("Archive/notes.txt").path]] {
            step.say("$ docs-status " + arguments.map { !$0.contains(" ") ? $0 : $0.contains("'") ? "\"\($0)\"" : "'\($0)'" }.joined(separator: " "))
            for line in try desktop.docsStatus(arguments).split(separator: "\n") { step.say("  " + String(line)) }
        }
    }
}
