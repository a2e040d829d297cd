import DocSyncStorage
import Foundation
import Glibc

/// The on-demand part of `make demo` (SPEC §14): a third device of the demo account, a
/// tablet, runs its folder `--mode on-demand`: a FUSE mount where every file shows with its
/// real size while no content is on the tablet; reading a file fetches what the read covers,
/// `user.docsync.status` says what is local, and `docs-status download` makes a file local.
extension DaemonDemo {
    /// Runs the step; returns the tablet (stopped by then; `nil` without FUSE) for the
    /// caller to stop should anything go wrong.
    func filesOnDemand(laptop: Device, server: DemoServer, url: URL) async throws -> Device? {
        let fm = FileManager.default
        step.title("14b. Files on demand: a tablet of the same account shows every file, and fetches content only when a program reads it")
        guard fm.fileExists(atPath: "/dev/fuse") else {
            step.say("skipped: /dev/fuse is missing here, so FUSE cannot mount (an on-demand folder needs it)")
            return nil
        }
        // Something worth fetching: 8 MiB of random bytes, made beside the folder and renamed in whole.
        let photo = Self.randomBytes(8 << 20)
        let staged = base.appendingPathComponent("holiday.raw")
        try photo.write(to: staged)
        try fm.createDirectory(at: laptop.file("Photos"), withIntermediateDirectories: true)
        try fm.moveItem(at: staged, to: laptop.file("Photos/holiday.raw"))
        _ = try laptop.docsStatus(["wait", "--timeout", "60"])
        step.say("the laptop adds Photos/holiday.raw (8 MiB of random bytes) and uploads it")

        let tablet = try Device("tablet", base: base, backend: url, tokenFile: server.tokenFile, extra: ["--mode", "on-demand"])
        try tablet.start()
        do {
            try await showOnDemand(tablet, laptop: laptop, photo: photo)
        } catch {
            _ = tablet.stop()
            throw error
        }
        return tablet
    }

    /// The tablet's part of the step, from its start to its stop.
    private func showOnDemand(_ tablet: Device, laptop: Device, photo: Data) async throws {
        let fm = FileManager.default
        let expected = ["Photos/holiday.raw": photo.count, "Archive/notes.txt": Self.size(of: laptop.file("Archive/notes.txt")),
                        "Archive/plan.md": Self.size(of: laptop.file("Archive/plan.md"))]
        let shown = await until { Self.isMounted(tablet.folder) && expected.allSatisfy { Self.size(of: tablet.file($0.key)) == $0.value } }
        step.say("docsyncd --folder \(tablet.folder.path) --mode on-demand …: \(tablet.folder.lastPathComponent) is a FUSE mount "
                 + "(\(Self.mountType(tablet.folder) ?? "not mounted")) showing every file after \(shown)")
        _ = try tablet.docsStatus(["wait", "--timeout", "30"])

        step.say("$ ls -l Archive Photos   (in the tablet's Documents: real names, sizes and times; no content read)")
        for line in try Self.run("/bin/ls", ["-l", "--time-style=+%H:%M", "Archive", "Photos"], in: tablet.folder).split(separator: "\n") {
            step.say("  " + String(line))
        }
        step.say("$ du -sh \(tablet.folder.lastPathComponent)   (what its files take on the tablet's disk)")
        step.say("  " + (try Self.run("/usr/bin/du", ["-sh", "."], in: tablet.folder)).trimmingCharacters(in: .whitespacesAndNewlines))
        step.say("$ docs-status ls Archive Photos   (on the tablet)")
        for line in try tablet.docsStatus(["ls", tablet.file("Archive").path, tablet.file("Photos").path]).split(separator: "\n") {
            step.say("  " + String(line))
        }

        let catStarted = ContinuousClock.now
        let text = try Self.run("/bin/cat", ["Archive/notes.txt"], in: tablet.folder)
        step.say("$ cat Archive/notes.txt   (fetched as it is read, in \(DemoCommand.format(ContinuousClock.now - catStarted)))")
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() { step.say("  " + String(line)) }
        let headStarted = ContinuousClock.now
        _ = try Self.run("/bin/sh", ["-c", "head -c 65536 Photos/holiday.raw > /dev/null"], in: tablet.folder)
        step.say("$ head -c 65536 Photos/holiday.raw > /dev/null   (\(DemoCommand.format(ContinuousClock.now - headStarted)): "
                 + "the chunks covering 64 KiB and at most 4 MiB of read-ahead, not all 8 MiB)")
        let partial = base.appendingPathComponent("tablet-state/folders/Documents/partial")
        step.say("$ du -sh tablet-state/folders/Documents/partial   (the parts read so far)")
        step.say("  " + (try Self.run("/usr/bin/du", ["-sh", "."], in: partial)).trimmingCharacters(in: .whitespacesAndNewlines))
        func attributes() {
            for path in ["Archive/notes.txt", "Archive/plan.md", "Photos/holiday.raw"] {
                step.say("  \(path.padding(toLength: 20, withPad: " ", startingAt: 0)) user.docsync.status=\"\(Self.attribute("user.docsync.status", of: tablet.file(path).path))\"")
            }
        }
        step.say("the extended attribute user.docsync.status says what is on the tablet (getfattr -n user.docsync.status FILE):")
        attributes()

        step.say("$ docs-status download Photos/holiday.raw   (on the tablet: made local, kept in the folder's cache)")
        for line in try tablet.docsStatus(["download", tablet.file("Photos/holiday.raw").path]).split(separator: "\n") { step.say("  " + String(line)) }
        let whole = fm.contents(atPath: tablet.file("Photos/holiday.raw").path)
        step.say("read whole through the mount: \(whole == photo ? "the laptop's 8 MiB, byte for byte" : "DIFFERENT from the laptop's")")
        attributes()
        step.say("$ docs-status ls Archive Photos   (on the tablet)")
        for line in try tablet.docsStatus(["ls", tablet.file("Archive").path, tablet.file("Photos").path]).split(separator: "\n") {
            step.say("  " + String(line))
        }
        step.say("(what cat read of notes.txt is in the mount's read cache, which the attribute counts; docs-status counts a file as "
                 + "downloaded once it is in the folder's own cache, as holiday.raw is now: docs-status download, or pin to keep it)")
        step.say("$ docs-status   (on the tablet)")
        for line in try tablet.docsStatus([]).split(separator: "\n") { step.say("  " + String(line)) }

        let status = tablet.stop()
        if Self.isMounted(tablet.folder) {
            _ = try? Self.run("/bin/fusermount3", ["-u", "-z", tablet.folder.path], in: base)
            step.say("the tablet exits with \(status), but its mount was left; detached with fusermount3 -u -z")
        } else {
            let left = ((try? fm.contentsOfDirectory(atPath: tablet.folder.path)) ?? []).filter { !$0.hasPrefix(".") }
            step.say("the tablet exits with \(status) (SIGTERM): the mount is gone; \(tablet.folder.lastPathComponent) is a plain, "
                     + "\(left.isEmpty ? "empty" : "non-empty") directory again (the files wait in the tablet's state directory)")
        }
    }

    /// `count` random bytes.
    static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var words = [UInt64](repeating: 0, count: (count + 7) / 8)
        for index in words.indices { words[index] = generator.next() }
        return words.withUnsafeBytes { Data($0.prefix(count)) }
    }

    /// The size `stat` gives the file at `url`, or -1.
    static func size(of url: URL) -> Int {
        var status = stat()
        return stat(url.path, &status) == 0 ? Int(status.st_size) : -1
    }

    /// The type the mount table gives the mount at `folder` (the last one there), or `nil`.
    static func mountType(_ folder: URL) -> String? {
        let table = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        // The mount table escapes a space as \040.
        let escaped = folder.path.replacingOccurrences(of: " ", with: "\\040")
        var type: String?
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            if fields.count > 2, fields[1] == escaped { type = fields[2] }
        }
        return type
    }

    static func isMounted(_ folder: URL) -> Bool { mountType(folder)?.hasPrefix("fuse") == true }

    /// `executable ARGUMENTS` in `directory`, its standard output (standard error dropped).
    static func run(_ executable: String, _ arguments: [String], in directory: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let exit = ProcessExit(of: process)
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        exit.wait()
        return String(decoding: output, as: UTF8.self)
    }

    /// The extended attribute `name` of `path` (libc's `getxattr`, which Glibc's Swift module
    /// leaves out; `getfattr` is not installed everywhere), or "errno N".
    static func attribute(_ name: String, of path: String) -> String {
        typealias GetAttribute = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
        guard let symbol = dlsym(nil, "getxattr") else { return "no getxattr" }
        var value = [UInt8](repeating: 0, count: 256)
        let length = unsafeBitCast(symbol, to: GetAttribute.self)(path, name, &value, value.count)
        return length < 0 ? "errno \(errno)" : String(decoding: value.prefix(length), as: UTF8.self)
    }
}
