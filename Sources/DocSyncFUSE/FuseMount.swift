import CFuse3
import DocSyncCore
import Foundation
import Glibc
import Logging
import Synchronization

/// A FUSE mount of an `OnDemandFileSystem` at a directory, served by libfuse's loop on
/// threads of its own (through `fusermount3` when not root).
///
/// What a caller may rely on: after `mount()` returns, the mount point shows the file
/// system; `unmount()` detaches it (lazily: programs with files open there keep them until
/// they close them) and returns once the loop ended or after `stopWait`. If the process
/// dies instead, the mount stays and answers `ENOTCONN` until `clearStale(at:)` is called.
public final class FuseMount: Sendable {
    public let mountPoint: String
    public let fileSystem: OnDemandFileSystem
    let logger: Logger
    /// The libfuse session while mounted (`fuse_session *`).
    private let session = Mutex<UnsafeSendablePointer?>(nil)
    /// Finished when the loop has returned.
    private let loopEnded = AsyncStream<Void>.makeStream()
    /// The watch that tells the kernel what the engine changed, while mounted.
    private let watching = Mutex<KernelCacheInvalidation?>(nil)
    /// Mounted by `fusermount3` on this process's behalf (not root): unmounted by it too.
    private let throughFusermount = Mutex(false)
    /// The file system, retained for libfuse while mounted.
    private let retained: Unmanaged<OnDemandFileSystem>

    /// The file system type the mount table shows (`fuse.docsync`).
    public static let subtype = "docsync"

    public init(mountPoint: String, fileSystem: OnDemandFileSystem, logger: Logger) {
        self.mountPoint = mountPoint
        self.fileSystem = fileSystem
        self.logger = logger
        self.retained = Unmanaged.passRetained(fileSystem)
    }

    deinit { retained.release() }

    /// Mounts the file system and starts serving it. Throws, saying why, when FUSE is not
    /// available or the mount point cannot take it.
    public func mount() throws(SyncError) {
        let arguments = ["docsyncd", "-o", "fsname=docsync,subtype=\(Self.subtype),default_permissions"]
        var pointers = arguments.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        var ops = FuseOperations.table()
        let created: OpaquePointer? = pointers.withUnsafeMutableBufferPointer { buffer in
            var args = fuse_args(argc: Int32(buffer.count), argv: buffer.baseAddress, allocated: 0)
            defer { fuse_opt_free_args(&args) }
            return fuse_session_new(&args, &ops, MemoryLayout<fuse_lowlevel_ops>.size, retained.toOpaque())
        }
        guard let created else {
            throw SyncError(.internalError, "FUSE could not start for \(mountPoint): is the fuse3 package installed and /dev/fuse there?")
        }
        // Not root: through fusermount3 (setuid), which passes the /dev/fuse descriptor back,
        // also where this user may not open /dev/fuse itself.
        var target = mountPoint
        if getuid() != 0 {
            let descriptor = docsync_fusermount_mount(mountPoint, "fsname=docsync,subtype=\(Self.subtype),default_permissions")
            guard descriptor >= 0 else {
                fuse_session_destroy(created)
                throw SyncError(.internalError, "cannot mount the on-demand folder at \(mountPoint) through fusermount3 (\(String(cString: strerror(-descriptor)))): "
                    + "is the fuse3 package installed (fusermount3 setuid root), and is the path a directory this user owns?")
            }
            target = "/dev/fd/\(descriptor)"
            throughFusermount.withLock { $0 = true }
        }
        guard fuse_session_mount(created, target) == 0 else {
            fuse_session_destroy(created)
            throw SyncError(.internalError, "cannot mount the on-demand folder at \(mountPoint) (see the log for libfuse's reason): "
                + "is /dev/fuse there and fusermount3 installed, and is the path a directory?")
        }
        session.withLock { $0 = UnsafeSendablePointer(created) }
        fileSystem.session.withLock { $0 = UnsafeSendablePointer(created) }
        let invalidation = KernelCacheInvalidation(fileSystem: fileSystem, logger: logger)
        do {
            watching.withLock { $0 = invalidation }
            _ = try invalidation.start()
        } catch {
            logger.warning("the content directory cannot be watched; remote changes show through the mount once the kernel's cache of them expires",
                           metadata: ["path": "\(mountPoint)", "error": "\(error)"])
        }
        let ended = loopEnded.continuation, logger = self.logger, mountPoint = self.mountPoint
        let served = UnsafeSendablePointer(created)
        let thread = Thread {
            // A pool of threads: while one waits for the kernel another answers (one thread
            // alone made `ls -lR` of 100,000 entries take twice as long here).
            let result = docsync_fuse_loop(served.raw, 16)
            if result != 0 { logger.warning("the on-demand folder's FUSE loop ended", metadata: ["path": "\(mountPoint)", "code": "\(result)"]) }
            ended.finish()
        }
        thread.name = "fuse " + (mountPoint.split(separator: "/").last.map(String.init) ?? mountPoint)
        thread.start()
        logger.info("on-demand folder mounted", metadata: ["path": "\(mountPoint)"])
    }

    /// How long `unmount` waits for the loop to end before leaving it.
    public static let stopWait: Duration = .seconds(5)

    /// Detaches the mount and stops serving it.
    public func unmount() async {
        guard let current = session.withLock({ state -> UnsafeSendablePointer? in defer { state = nil }; return state }) else { return }
        watching.withLock { state in state?.stop(); state = nil }
        fileSystem.session.withLock { $0 = nil }
        fuse_session_exit(current.raw)
        if throughFusermount.withLock({ $0 }) {
            // libfuse knows the mount only by its descriptor: fusermount3 detaches it.
            let code = Self.runFusermount(["-u", "-z", "-q", mountPoint])
            if code != 0 { logger.warning("fusermount3 could not unmount the on-demand folder", metadata: ["path": "\(mountPoint)"]) }
        } else {
            fuse_session_unmount(current.raw)
        }
        let ended = await withTaskGroup(of: Bool.self) { group in
            group.addTask { for await _ in self.loopEnded.stream {}; return true }
            group.addTask { try? await Task.sleep(for: Self.stopWait); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        // A loop still waiting for the kernel keeps its session; the process is ending anyway.
        if ended { fuse_session_destroy(current.raw) }
        logger.info("on-demand folder unmounted", metadata: ["path": "\(mountPoint)"])
    }

    // MARK: the mount table

    /// The mounts at `path` (decoded from `/proc/self/mountinfo`), newest last, as their
    /// file system types.
    public static func mountTypes(at path: String) -> [String] {
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return [] }
        var types: [String] = []
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 4, decodeMountPath(fields[4]) == path,
                  let separator = fields.firstIndex(of: "-"), separator + 1 < fields.count else { continue }
            types.append(String(fields[separator + 1]))
        }
        return types
    }

    /// Whether a docsync FUSE mount is at `path`.
    public static func isMounted(at path: String) -> Bool {
        mountTypes(at: path).contains("fuse." + subtype)
    }

    /// Detaches a docsync mount left at `path` by a process that died (it answers
    /// `ENOTCONN`), so the directory beneath shows again. Returns whether there was one.
    @discardableResult
    public static func clearStale(at path: String, logger: Logger) -> Bool {
        guard isMounted(at: path) else { return false }
        let code: Int32 = getuid() == 0 ? (umount2(path, Int32(MNT_DETACH)) == 0 ? 0 : errno) : runFusermount(["-u", "-z", "-q", path])
        if code == 0 {
            logger.notice("cleared the on-demand mount a previous run left", metadata: ["path": "\(path)"])
        } else {
            logger.warning("could not clear the on-demand mount a previous run left", metadata: ["path": "\(path)", "code": "\(code)"])
        }
        return code == 0
    }

    private static func runFusermount(_ arguments: [String]) -> Int32 {
        let argv = (["fusermount3"] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, "fusermount3", nil, nil, argv, environ) == 0 else { return ENOENT }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status == 0 ? 0 : EIO
    }

    /// A mount path as `/proc/self/mountinfo` writes it: space, tab, newline and backslash as
    /// three octal digits after a backslash.
    static func decodeMountPath(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(field.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count,
               let value = UInt8(String(decoding: utf8[index + 1...index + 3], as: UTF8.self), radix: 8) {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A C pointer handed between threads (libfuse's session is safe to exit and unmount from
/// another thread than its loop's).
struct UnsafeSendablePointer: @unchecked Sendable {
    let raw: OpaquePointer
    init(_ raw: OpaquePointer) { self.raw = raw }
}
