import DocSyncCore
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// Two real daemons on one `file://` backend for the on-demand mount's system tests (SPEC
/// §14): "alpha", a mirror on a plain directory, and "beta", `--mode on-demand`, whose folder
/// is a FUSE mount of its content directory.
final class OnDemandMountPair: Sendable {
    let base: TemporaryDirectory
    let alpha: DaemonProcess
    let beta: DaemonProcess
    /// A directory of the same file system as the folders, for files made elsewhere and
    /// renamed in whole, and for reference trees.
    let scratch: URL

    init() throws {
        base = try TemporaryDirectory("docsync-mount")
        let backend = URL(fileURLWithPath: base.url.appendingPathComponent("backend").path)
        // Files over 50 MB (the default limit) are what a partial read is for.
        alpha = try DaemonProcess(name: "alpha", base: base.url, backend: backend, extraArguments: ["--max-file-size", "1GB"])
        beta = try DaemonProcess(name: "beta", base: base.url, backend: backend, extraArguments: ["--mode", "on-demand", "--max-file-size", "1GB"])
        scratch = base.url.appendingPathComponent("scratch")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    /// Starts both daemons and waits until beta's folder is mounted.
    func start(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try alpha.start()
        try beta.start()
        let mounted = await beta.waitMounted()
        try #require(mounted, "beta's folder was not mounted:\n\(beta.logTextWithoutRequests().suffix(3000))", sourceLocation: sourceLocation)
    }

    /// Runs `body` on the started pair, then stops both daemons and detaches any mount left.
    func run(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async throws {
        try await closing({ await self.close() }) {
            try await start(sourceLocation: sourceLocation)
            try await body()
        }
    }

    /// Stops both daemons; a mount still at beta's folder afterwards is detached (`umount -l`),
    /// and recorded as an issue when beta had stopped cleanly (its mount goes when it stops).
    func close() async {
        let betaWasRunning = beta.isRunning
        let betaStatus = await beta.stop()
        await alpha.stop()
        if await beta.unmountLeftover(), betaWasRunning, betaStatus == 0 {
            Issue.record("beta stopped cleanly but left its mount at \(beta.folder.path)")
        }
    }

    /// The tail of both logs, for a failure message.
    var logs: String {
        "--- alpha log tail:\n\(alpha.logTextWithoutRequests().suffix(2500))\n--- beta log tail:\n\(beta.logTextWithoutRequests().suffix(4000))"
    }

    /// Writes `data` to `relative` in alpha's folder whole: made in the scratch directory and
    /// renamed in, so alpha's watcher never sees it half written.
    func alphaWrites(_ data: Data, to relative: String) throws {
        let staged = scratch.appendingPathComponent(UUID().uuidString)
        try data.write(to: staged)
        let target = alpha.file(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard Glibc.rename(staged.path, target.path) == 0 else { throw PosixError(errno, "rename \(staged.path) to \(target.path)") }
    }

    /// Waits until every one of `paths` shows through beta's mount with alpha's size.
    func waitShownOnBeta(_ paths: [String], timeout: Duration = .seconds(60)) async -> Bool {
        await eventually(timeout: timeout, pollEvery: .milliseconds(50)) {
            paths.allSatisfy { path in
                guard let shown = lstatus(beta.file(path).path), let original = lstatus(alpha.file(path).path) else { return false }
                return shown.st_size == original.st_size
            }
        }
    }
}

/// An errno with what failed.
struct PosixError: Error, CustomStringConvertible {
    let code: Int32
    let what: String
    init(_ code: Int32, _ what: String) { self.code = code; self.what = what }
    var description: String { "\(what): \(String(cString: strerror(code))) (errno \(code))" }
}

/// Whether FUSE can be used here (the on-demand mount's system tests need `/dev/fuse`).
let fuseAvailable = FileManager.default.fileExists(atPath: "/dev/fuse")

// MARK: system calls as the tests make them

/// `lstat`, nil when it fails.
func lstatus(_ path: String) -> stat? {
    var status = stat()
    return lstat(path, &status) == 0 ? status : nil
}

/// The errno `stat` fails with at `path`, 0 when it succeeds.
func statErrno(_ path: String) -> Int32 {
    var status = stat()
    return stat(path, &status) == 0 ? 0 : errno
}

/// libc's `getxattr(2)` (Glibc's Swift module leaves `sys/xattr.h` out).
private let getxattrFunction: @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int = {
    guard let symbol = dlsym(nil, "getxattr") else { fatalError("libc has no getxattr") }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int).self)
}()

/// `user.docsync.status` of the item at `path`, or "errno N" when it cannot be read.
func docsyncStatus(_ path: String) -> String { extendedAttribute("user.docsync.status", of: path) }

/// The extended attribute `name` of the item at `path`, or "errno N" when it cannot be read.
func extendedAttribute(_ name: String, of path: String) -> String {
    var value = [UInt8](repeating: 0, count: 256)
    let length = getxattrFunction(path, name, &value, value.count)
    guard length >= 0 else { return "errno \(errno)" }
    return String(decoding: value.prefix(length), as: UTF8.self)
}

/// `count` bytes read at `offset` through `open` and `pread`.
func readBytes(_ path: String, at offset: Int, count: Int) throws -> Data {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw PosixError(errno, "open \(path)") }
    defer { close(descriptor) }
    var data = Data(count: count)
    var got = 0
    while got < count {
        let result = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + got, count - got, off_t(offset + got)) }
        guard result >= 0 else { throw PosixError(errno, "pread \(path) at \(offset + got)") }
        if result == 0 { break }
        got += result
    }
    return data.prefix(got)
}

/// Writes `data` at `offset` of the existing file `path` (`open(O_RDWR)`, `pwrite`), in place.
func writeBytes(_ data: Data, to path: String, at offset: Int) throws {
    let descriptor = open(path, O_RDWR | O_CLOEXEC)
    guard descriptor >= 0 else { throw PosixError(errno, "open \(path) for writing") }
    defer { close(descriptor) }
    let written = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
    guard written == data.count else { throw PosixError(errno, "pwrite \(path) at \(offset)") }
}

/// `count` random bytes, the same for the same seed.
func seededBytes(_ count: Int, seed: UInt64) -> Data {
    var random = SeededRandom(seed: seed)
    var words = [UInt64](repeating: 0, count: (count + 7) / 8)
    for index in words.indices { words[index] = random.next() }
    return words.withUnsafeBytes { Data($0.prefix(count)) }
}

func digest(_ data: Data) -> String { SHA256Digest(hashing: data).hex }

/// Every item under `root` (the root marker excepted), by relative path.
func walk(_ root: URL) -> [String: stat] {
    var items: [String: stat] = [:]
    var stack = [""]
    while let next = stack.popLast() {
        let directory = next.isEmpty ? root.path : root.path + "/" + next
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
        for name in names where !(next.isEmpty && name == IgnoreRules.rootMarkerName) {
            let relative = next.isEmpty ? name : next + "/" + name
            guard let status = lstatus(root.path + "/" + relative) else { continue }
            items[relative] = status
            if status.st_mode & S_IFMT == S_IFDIR { stack.append(relative) }
        }
    }
    return items
}

/// What a synced item must be the same in on both devices: kind, permission bits, and a
/// file's size, content and (when asked) modification time to the second, or a link's target.
struct ItemFacts: Equatable, CustomStringConvertible {
    var kind: String
    var mode: UInt32
    var size: Int64
    var content: String
    var modified: Int?

    var description: String {
        "\(kind) \(String(mode, radix: 8)) \(size) \(content.prefix(12))" + (modified.map { " @\($0)" } ?? "")
    }
}

/// The facts of every item under `root` (the root marker excepted); a file's content is read.
func facts(_ root: URL, modificationTimes: Bool = false) -> [String: ItemFacts] {
    walk(root).reduce(into: [:]) { result, entry in
        let (relative, status) = entry
        let path = root.path + "/" + relative
        let mode = UInt32(status.st_mode) & 0o7777
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            result[relative] = ItemFacts(kind: "dir", mode: mode, size: 0, content: "")
        case S_IFLNK:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            result[relative] = ItemFacts(kind: "link", mode: 0, size: 0, content: target)
        default:
            let content = FileManager.default.contents(atPath: path).map(digest) ?? "unreadable"
            result[relative] = ItemFacts(kind: "file", mode: mode, size: Int64(status.st_size), content: content,
                                         modified: modificationTimes ? status.st_mtim.tv_sec : nil)
        }
    }
}

/// A readable list of how two fact maps differ.
func difference(_ left: [String: ItemFacts], _ right: [String: ItemFacts]) -> String {
    Set(left.keys).union(right.keys).sorted().compactMap { key -> String? in
        let a = left[key], b = right[key]
        if a == b { return nil }
        return "\(key): \(a.map { "\($0)" } ?? "missing") vs \(b.map { "\($0)" } ?? "missing")"
    }.prefix(30).joined(separator: "\n")
}

/// Runs `script` with `/bin/sh -c` in `directory`, with a HOME of its own (no user's git or
/// sqlite settings): its status and output.
func sh(_ script: String, in directory: URL, home: URL) async throws -> (status: Int32, output: String, errors: String) {
    try await runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(directory.path)' && \(script)"],
                         environment: ["HOME": home.path, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"])
}
