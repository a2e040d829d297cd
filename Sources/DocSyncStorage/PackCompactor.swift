import DocSyncCore
import DocSyncPlatform
import Foundation
import GRDB
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Gives back the disk space of collected chunks: packs that hold no indexed chunk are
/// removed; packs whose indexed chunks fill less than `liveShareToCompact` of the file —
/// and the packs a run is told to rewrite, whatever they hold — have them copied (verified)
/// into a new pack, the index moved over in one transaction, and are then removed; pack
/// files nobody indexed (a crashed upload) are removed once older than `leftoverAge`.
///
/// Readers in this or another process that looked a chunk up before it moved find its old
/// pack gone and look it up again (`PackStore.read`). A crash at any point leaves every
/// indexed chunk readable: the index moves only after the new pack is durable, and old
/// packs go only after the index moved. Run under the store's `CollectionLock`, after a sweep.
struct PackCompactor {
    let pool: DatabasePool
    let packs: PackStore
    let leftoverAge: TimeInterval
    let logger: Logger

    /// Packs whose live chunks fill less than this share of the file are compacted.
    static let liveShareToCompact = 0.5
    /// A new pack is closed once it holds this much.
    static let newPackLimit: Int64 = 1 << 30
    /// The most bytes read from old packs at once.
    static let copyGroupBytes = 8 << 20

    struct LiveChunk {
        var rowid: Int64
        var digest: SHA256Digest
        var offset: Int64
        var length: Int
        /// A sealed chunk's body digest (what its bytes are verified against as they are copied).
        var bodyDigest: SHA256Digest?
    }

    /// A pack being written: its name, descriptor, writer, and the chunks placed in it.
    private final class NewPack {
        let name: String
        let fd: Int32
        let writer: DirectFileWriter
        var moved: [(rowid: Int64, oldPack: Int64, offset: Int64)] = []

        init(name: String, fd: Int32) {
            self.name = name
            self.fd = fd
            writer = DirectFileWriter(fd: fd)
        }
    }

    /// One run. The packs `rewriting` names (those a sweep removed chunks from, when no
    /// byte of those chunks may stay on disk) are rewritten however full they are.
    func run(into report: inout GarbageCollectionReport, rewriting: Set<Int64> = []) throws(SyncError) {
        let (names, live) = try survey()
        var empty: [Int64] = []
        var sparse: Set<Int64> = []
        for (id, name) in names {
            let size = fileSize(name) ?? 0
            let liveBytes = live[id] ?? 0
            if liveBytes == 0 {
                empty.append(id)
            } else if rewriting.contains(id) || Double(liveBytes) < Double(size) * Self.liveShareToCompact {
                sparse.insert(id)
            }
        }
        var removable = empty
        if !sparse.isEmpty {
            let (moved, compacted) = try compact(sparse, names: names)
            report.chunksMoved += moved
            report.packsCompacted += compacted.count
            removable += compacted
        }
        if !removable.isEmpty {
            do {
                try pool.write { db in
                    for ids in removable.chunked(500) {
                        try db.execute(sql: "DELETE FROM pack WHERE id IN (\(ids.map(String.init).joined(separator: ",")))")
                    }
                }
            } catch {
                throw LocalBackend.map(error, "forget \(removable.count) packs")
            }
            for id in removable { unlink(packs.root.path + "/" + names[id]!) }
            report.packsRemoved += removable.count
        }
        report.packsRemoved += removeLeftovers()
        _ = packs.syncDirectory()
    }

    /// Every indexed pack's name, and the bytes of indexed chunks in each.
    private func survey() throws(SyncError) -> (names: [Int64: String], live: [Int64: Int64]) {
        do {
            return try pool.read { db in
                var names: [Int64: String] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT id, name FROM pack") { names[row[0]] = row[1] }
                var live: [Int64: Int64] = [:]
                let sums = try db.directStatement(sql: "SELECT pack, SUM(length) FROM chunk GROUP BY pack")
                try sums.forEachRow { live[$0.integer(0)] = $0.integer(1) }
                return (names, live)
            }
        } catch {
            throw LocalBackend.map(error, "survey the packs")
        }
    }

    /// Copies the live chunks of the packs `ids` into new packs and moves the index over.
    /// Returns how many chunks moved and which packs were emptied (a pack with a chunk that
    /// does not read back right keeps its chunks, and is left as it is).
    private func compact(_ ids: Set<Int64>, names: [Int64: String]) throws(SyncError) -> (Int, [Int64]) {
        var byPack: [Int64: [LiveChunk]] = [:]
        do {
            try pool.read { db in
                let rows = try db.directStatement(sql: "SELECT rowid, pack, offset, length, digest, bodyDigest FROM chunk")
                try rows.forEachRow { row in
                    let pack = row.integer(1)
                    guard ids.contains(pack), let digest = row.digest(4) else { return }
                    byPack[pack, default: []].append(LiveChunk(rowid: row.integer(0), digest: digest, offset: row.integer(2), length: Int(row.integer(3)),
                                                               bodyDigest: row.digest(5)))
                }
            }
        } catch {
            throw LocalBackend.map(error, "list the chunks of \(ids.count) packs to compact")
        }
        var written: [NewPack] = []
        var emptied: [Int64] = []
        var movedCount = 0
        defer { for pack in written { close(pack.fd) } }
        for (id, chunks) in byPack.sorted(by: { $0.key < $1.key }) {
            if written.last.map({ $0.writer.length >= Self.newPackLimit }) ?? true {
                written.append(try openNewPack())
            }
            let target = written.last!
            let mark = target.moved.count
            do {
                try copy(chunks, from: names[id]!, oldPack: id, into: target)
                emptied.append(id)
                movedCount += chunks.count
            } catch {
                // What was copied of this pack stays in the new one, unindexed: dead bytes.
                target.moved.removeSubrange(mark...)
                logger.error("a pack was not compacted: one of its chunks does not read back right",
                             metadata: ["pack": "\(names[id]!)", "error": "\(error)"])
            }
        }
        for pack in written {
            let code = pack.writer.finish()
            if code != 0 { throw SyncError.posix("write \(packs.root.path)/\(pack.name)", code) }
            if fsync(pack.fd) != 0 { throw SyncError.posix("flush \(packs.root.path)/\(pack.name)", errno) }
        }
        if let failure = packs.syncDirectory() { throw failure }
        do {
            try pool.write { db in
                let move = try db.directStatement(sql: "UPDATE chunk SET pack = ?, offset = ? WHERE rowid = ? AND pack = ?")
                for pack in written {
                    try db.execute(sql: "INSERT INTO pack (name) VALUES (?)", arguments: [pack.name])
                    let number = db.lastInsertedRowID
                    for chunk in pack.moved {
                        move.bind(1, number)
                        move.bind(2, chunk.offset)
                        move.bind(3, chunk.rowid)
                        move.bind(4, chunk.oldPack)
                        try move.execute()
                    }
                }
            }
        } catch {
            for pack in written { unlink(packs.root.path + "/" + pack.name) }
            throw LocalBackend.map(error, "move \(movedCount) chunks to their new packs")
        }
        logger.info("compacted packs", metadata: ["packs": "\(emptied.count)", "chunks": "\(movedCount)"])
        return (movedCount, emptied)
    }

    /// Appends `chunks` of pack `oldPack` (file `name`), read and verified a group at a
    /// time, to `target`.
    private func copy(_ chunks: [LiveChunk], from name: String, oldPack: Int64, into target: NewPack) throws(SyncError) {
        let sorted = chunks.sorted { $0.offset < $1.offset }
        var start = 0
        while start < sorted.count {
            var end = start, bytes = 0
            while end < sorted.count, end == start || bytes + sorted[end].length <= Self.copyGroupBytes {
                bytes += sorted[end].length
                end += 1
            }
            let group = sorted[start ..< end]
            start = end
            var places: [SHA256Digest: PackStore.Place] = [:]
            for chunk in group { places[chunk.digest] = (name, chunk.offset, chunk.length, chunk.bodyDigest) }
            let loaded = try packs.read(places, relocating: false)
            for chunk in group {
                let offset = target.writer.length
                let code = target.writer.append(loaded[chunk.digest]!)
                guard code == 0 else { throw SyncError.posix("write \(packs.root.path)/\(target.name)", code) }
                target.moved.append((chunk.rowid, oldPack, offset))
            }
        }
    }

    private func openNewPack() throws(SyncError) -> NewPack {
        let name = PackStore.newPackName()
        let path = packs.root.path + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SyncError.posix("create \(path)", errno) }
        return NewPack(name: name, fd: fd)
    }

    /// Removes pack files no pack row names that were last written more than `leftoverAge`
    /// ago (an upload that crashed before indexing its pack, a compaction cut short).
    private func removeLeftovers() -> Int {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: packs.root.path) else { return 0 }
        guard let indexed = try? pool.read({ db in Set(try String.fetchAll(db, sql: "SELECT name FROM pack")) }) else { return 0 }
        let oldest = Date().addingTimeInterval(-leftoverAge).timeIntervalSince1970
        var removed = 0
        for file in files where file.hasSuffix(".pack") && !indexed.contains(file) {
            var status = stat()
            let path = packs.root.path + "/" + file
            guard stat(path, &status) == 0, Double(status.st_mtim.tv_sec) < oldest else { continue }
            if unlink(path) == 0 {
                removed += 1
                logger.info("removed a pack file nothing indexes", metadata: ["pack": "\(file)"])
            }
        }
        return removed
    }

    private func fileSize(_ name: String) -> Int64? {
        var status = stat()
        guard stat(packs.root.path + "/" + name, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }

    /// Bytes of every pack file in the store's pack directory.
    static func bytesOnDisk(of root: URL) -> Int64 {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return 0 }
        var total: Int64 = 0
        for file in files where file.hasSuffix(".pack") {
            var status = stat()
            if stat(root.path + "/" + file, &status) == 0 { total += Int64(status.st_size) }
        }
        return total
    }
}

extension Array {
    /// The array cut into pieces of at most `size` elements, in order.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0 ..< Swift.min($0 + size, count)] }
    }
}
