import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import Foundation
import Synchronization

/// The least work an initial sync through the embedded backend can do under SPEC §2–§3,
/// with nothing else: no index, no records, no watcher, no control socket. It tells how far
/// below `rsync -a` a design that keeps the spec's promises can go on this machine.
///
/// Two threads, as two daemons on two cores:
/// - the *sender* lists the tree, reads each file whole, cuts it into content-defined chunks
///   and hashes every chunk and the whole file (`AssetChunker`), and appends the chunks to
///   8 MiB pack files, each written and `fdatasync`ed before the files in it are announced;
/// - the *receiver*, as files are announced, reads their chunks back from the packs,
///   checks every chunk's SHA-256 (and the whole file's when it has several chunks), writes
///   each file beside its target, sets its mode and modification time, renames it into place,
///   and `syncfs`es every 2,000 files and at the end.
///
/// It leaves out everything a daemon adds on top: the index and the records, asking which
/// chunks the backend already holds, the watcher, merging. The tree is read after it was
/// written, from the page cache, as `rsync -a` and `cp -a` read it in the same run.
enum DataPathFloor {
    struct Result: Encodable {
        let seconds: Double
        /// CPU time (user + system) of this process during the run: both threads.
        let cpuSeconds: Double
    }

    private struct Item {
        var path: String
        var isDirectory: Bool
        var mode: mode_t
        var modified: timespec
        var size: Int
        /// Where the sender put each chunk: pack number, offset, length, digest.
        var chunks: [(pack: Int, offset: Int, length: Int, digest: SHA256Digest)] = []
        var contentDigest: SHA256Digest?
    }

    /// Brings the tree at `source` to `destination` (which must not exist) through packs in
    /// `packs` (likewise); returns the wall and CPU time. Throws when a file cannot be read
    /// or written, or a chunk or file does not verify.
    static func run(source: URL, destination: URL, packs: URL) throws -> Result {
        let cpuBefore = processCPUSeconds()
        let started = ContinuousClock.now
        let items = try listTree(source)
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(at: packs, withIntermediateDirectories: false)
        let shared = Shared(items)
        let failure = Mutex<(any Error)?>(nil)
        let group = DispatchGroup()
        let sides: [@Sendable () throws -> Void] = [
            { try send(shared, from: source.path, packs: packs.path) },
            { try receive(shared, into: destination.path, packs: packs.path) },
        ]
        for work in sides {
            group.enter()
            Thread {
                do { try work() } catch {
                    failure.withLock { $0 = $0 ?? error }
                    shared.stopped.store(true, ordering: .relaxed)
                }
                group.leave()
            }.start()
        }
        group.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        return Result(seconds: SyncBench.seconds(ContinuousClock.now - started), cpuSeconds: processCPUSeconds() - cpuBefore)
    }

    /// The items of the tree in path order (a folder before what it holds).
    private static func listTree(_ root: URL) throws -> [Item] {
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { throw BenchError("cannot list \(root.path)") }
        var items: [Item] = []
        while let relative = enumerator.nextObject() as? String {
            var st = stat()
            guard lstat(root.path + "/" + relative, &st) == 0 else { throw BenchError("cannot stat \(relative): errno \(errno)") }
            let kind = st.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { continue }
            items.append(Item(path: relative, isDirectory: kind == S_IFDIR, mode: st.st_mode & 0o7777, modified: st.st_mtim, size: Int(st.st_size)))
        }
        items.sort { $0.path < $1.path }
        return items
    }

    private static func send(_ shared: Shared, from root: String, packs: String) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: shared.largestFile, alignment: 4096)
        defer { buffer.deallocate() }
        let packLimit = 8 << 20
        let pack = UnsafeMutableRawBufferPointer.allocate(byteCount: packLimit + ChunkerParameters.documents.maximumSize, alignment: 4096)
        defer { pack.deallocate() }
        var packNumber = 0, packLength = 0
        func commitPack(announcingBefore index: Int) throws {
            let fd = open("\(packs)/pack-\(packNumber)", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw BenchError("cannot create a pack: errno \(errno)") }
            defer { close(fd) }
            try writeAll(fd, UnsafeRawBufferPointer(rebasing: pack[0..<packLength]))
            guard fdatasync(fd) == 0 else { throw BenchError("cannot flush a pack: errno \(errno)") }
            packNumber += 1
            packLength = 0
            shared.announce(upTo: index)
        }
        let chunker = AssetChunker()
        for index in shared.items.indices where !shared.items[index].isDirectory {
            guard !shared.stopped.load(ordering: .relaxed) else { return }
            let path = root + "/" + shared.items[index].path
            let count = try readWhole(path, into: buffer)
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            let manifest = chunker.chunk(bytes)
            // Chunks go into the pack in order; a full pack is committed first, announcing
            // every file before this one.
            var placed: [(pack: Int, offset: Int, length: Int, digest: SHA256Digest)] = []
            var offset = 0
            for ref in manifest.chunks {
                if packLength + ref.length > packLimit { try commitPack(announcingBefore: index) }
                pack.baseAddress!.advanced(by: packLength).copyMemory(from: bytes.baseAddress! + offset, byteCount: ref.length)
                placed.append((packNumber, packLength, ref.length, ref.digest))
                packLength += ref.length
                offset += ref.length
            }
            shared.items[index].chunks = placed
            shared.items[index].contentDigest = manifest.contentDigest
        }
        try commitPack(announcingBefore: shared.items.count)
    }

    private static func receive(_ shared: Shared, into root: String, packs: String) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: shared.largestFile, alignment: 4096)
        defer { buffer.deallocate() }
        var packFiles: [Int: Int32] = [:]
        defer { for fd in packFiles.values { close(fd) } }
        var done = 0, sinceFlush = 0
        while done < shared.items.count {
            guard !shared.stopped.load(ordering: .relaxed) else { return }
            let announced = shared.announced()
            guard announced > done else {
                usleep(200)
                continue
            }
            for index in done..<announced {
                let item = shared.items[index]
                let target = root + "/" + item.path
                if item.isDirectory {
                    guard mkdir(target, item.mode) == 0 else { throw BenchError("cannot make \(item.path): errno \(errno)") }
                    continue
                }
                var length = 0
                for chunk in item.chunks {
                    let fd: Int32
                    if let open = packFiles[chunk.pack] { fd = open } else {
                        fd = open("\(packs)/pack-\(chunk.pack)", O_RDONLY)
                        guard fd >= 0 else { throw BenchError("cannot open pack \(chunk.pack): errno \(errno)") }
                        packFiles[chunk.pack] = fd
                    }
                    let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[length..<length + chunk.length])
                    guard FileIO.read(fd, offset: Int64(chunk.offset), into: slice).count == chunk.length,
                          SHA256Digest(hashing: UnsafeRawBufferPointer(slice)) == chunk.digest else {
                        throw BenchError("chunk of \(item.path) does not verify")
                    }
                    length += chunk.length
                }
                let content = UnsafeRawBufferPointer(rebasing: buffer[0..<length])
                if item.chunks.count > 1, SHA256Digest(hashing: content) != item.contentDigest {
                    throw BenchError("\(item.path) does not verify")
                }
                let temporary = (target as NSString).deletingLastPathComponent + "/.floor-\(index).tmp"
                let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
                guard fd >= 0 else { throw BenchError("cannot create \(temporary): errno \(errno)") }
                try writeAll(fd, content)
                var times = [item.modified, item.modified]
                futimens(fd, &times)
                fchmod(fd, item.mode)
                close(fd)
                guard rename(temporary, target) == 0 else { throw BenchError("cannot rename into \(item.path): errno \(errno)") }
                sinceFlush += 1
                if sinceFlush == 2000 {
                    try flush(root)
                    sinceFlush = 0
                }
            }
            done = announced
        }
        try flush(root)
    }

    /// The items, written by the sender and read by the receiver: an item is the sender's
    /// until it is announced, and only read afterwards.
    private final class Shared: @unchecked Sendable {
        let items: UnsafeMutableBufferPointer<Item>
        /// The size of the largest file (at least 1): what a buffer for any one file needs.
        let largestFile: Int
        private let announcedCount = Atomic<Int>(0)
        /// Set when either side failed: the other stops too.
        let stopped = Atomic<Bool>(false)

        init(_ items: [Item]) {
            self.items = .allocate(capacity: items.count)
            _ = self.items.initialize(from: items)
            largestFile = max(1, items.reduce(0) { max($0, $1.size) })
        }

        deinit {
            items.deinitialize()
            items.deallocate()
        }

        /// Every item before `index` is complete (its chunks in a flushed pack).
        func announce(upTo index: Int) { announcedCount.store(index, ordering: .releasing) }
        func announced() -> Int { announcedCount.load(ordering: .acquiring) }
    }

    /// Reads the file at `path` into `buffer` (as much as fits); returns how many bytes.
    private static func readWhole(_ path: String, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw BenchError("cannot open \(path): errno \(errno)") }
        defer { close(fd) }
        let (count, error) = FileIO.read(fd, offset: 0, into: buffer)
        guard error == 0 else { throw BenchError("cannot read \(path): errno \(error)") }
        return count
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: bytes.count, deallocator: .none)
        let error = FileIO.writeAll(fd, data)
        guard error == 0 else { throw BenchError("cannot write: errno \(error)") }
    }

    private static func flush(_ path: String) throws {
        guard FileIO.flushFileSystem(of: path) else { throw BenchError("cannot flush the file system of \(path): errno \(errno)") }
    }

    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

