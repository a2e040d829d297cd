import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import GRDB

/// What must hold once a simulation healed and settled. Each check returns the problems it
/// found, one line each; none means it holds.
extension Simulation {
    func invariantProblems() async -> [String] {
        let records = await SimulationTree.storeRecords(store)
        var problems = treesMatchTheStore(records)
        problems += noWriteLost()
        problems += deletionsStayDeleted()
        problems += indexesMatchTheDisks()
        problems += noTemporaryFiles()
        problems += await chunksAreStoredAndVerify(records)
        return problems
    }

    /// Every device's folder (less ignored files) is the store's records, item for item.
    func treesMatchTheStore(_ records: [String: DocSyncCore.Record]) -> [String] {
        // Paths, and what is there, compared as bytes (a link's target is a path).
        var expected: [PathKey: PathKey] = [:]
        for record in records.values {
            expected[PathKey(record.path.string)] = switch record.type {
            case .folder: PathKey("dir")
            case .document: PathKey("file \(record.contentDigest?.shortHex ?? "?")")
            case .symlink: PathKey("link \(record.symlinkTarget ?? "?")")
            case .value: PathKey("a Value, which no folder holds")
            case .sealed: PathKey("a sealed record, which the simulation never writes")
            }
        }
        var problems: [String] = []
        for device in devices {
            var actual: [PathKey: PathKey] = [:]
            for (path, entry) in SimulationTree.walk(device.fileSystem, root: device.root) {
                actual[path] = switch entry.kind {
                case .directory: PathKey("dir")
                case .symlink: PathKey("link \(entry.content.map { String(decoding: $0, as: UTF8.self) } ?? "?")")
                default: PathKey("file \(SHA256Digest(hashing: entry.content ?? Data()).shortHex)")
                }
            }
            for path in Set(expected.keys).union(actual.keys).sorted() where expected[path] != actual[path] {
                let held = records.values.filter { PathKey($0.path.string) == path }.map { "\($0.id.recordName) by \($0.lastModifiedBy)" }.sorted()
                let indexed = indexRows(device, at: path.string).map { "\($0.name) pending \($0.pending)" }
                problems.append("\(device.name): \(path) is \(actual[path] ?? "missing"), the store has \(expected[path] ?? "nothing")"
                    + " (store records \(held), its index \(indexed))")
            }
        }
        return problems
    }

    /// The end state for triage: the store's records and each device's index rows, one per
    /// line, sorted by path.
    func endState() async -> String {
        let records = await SimulationTree.storeRecords(store).values.sorted { $0.path < $1.path }
        var lines = ["store:"] + records.map { "  \($0.path) \($0.type.rawValue) \($0.id.recordName) tag \($0.changeTag.map { "\($0)" } ?? "-") by \($0.lastModifiedBy)" }
        for device in devices {
            var configuration = Configuration()
            configuration.readonly = true
            let rows = (try? DatabaseQueue(path: device.configuration.indexURL.path, configuration: configuration).read { db in
                try Row.fetchAll(db, sql: "SELECT path, kind, recordName, pending, acked IS NOT NULL AS acked FROM item ORDER BY path")
            }) ?? []
            lines.append("\(device.name) index:")
            lines += rows.map { "  \($0["path"] as String) \($0["kind"] as String) \($0["recordName"] as String) pending \($0["pending"] as Int) acked \($0["acked"] as Bool)" }
        }
        return lines.joined(separator: "\n")
    }

    /// The rows of `device`'s index at `path`: record name and pending state.
    func indexRows(_ device: SimulatedDevice, at path: String) -> [(name: String, pending: Int)] {
        var configuration = Configuration()
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: device.configuration.indexURL.path, configuration: configuration),
              let rows = try? queue.read({ db in try Row.fetchAll(db, sql: "SELECT recordName, pending FROM item WHERE path = ?", arguments: [path]) })
        else { return [] }
        return rows.map { (name: $0["recordName"], pending: $0["pending"]) }
    }

    /// Every content on some device's disk or in some device's version store.
    func survivingContents() -> Set<Data> {
        var found = Set<Data>()
        for device in devices {
            for entry in SimulationTree.walk(device.fileSystem, root: device.root).values { if let data = entry.content { found.insert(data) } }
            let versions = device.configuration.versionsURL.path
            for entry in SimulationTree.walk(device.fileSystem, root: versions, everything: true).values {
                if entry.kind == .file, let data = entry.content { found.insert(data) }
            }
        }
        return found
    }

    /// A write that no later write replaced knowingly and no device deleted knowingly is
    /// still somewhere: the file, a conflict copy, or a version store.
    func noWriteLost() -> [String] {
        let surviving = survivingContents()
        return ledger.writes.filter { $0.replacedBy == nil && $0.deletedBy.isEmpty && !surviving.contains($0.content) }.map {
            "write w\($0.id) by dev\($0.device) at \($0.path) is lost: not on any disk, not in any version store"
        }
    }

    /// A file deleted by a device that had it, which no device edited or moved since its own
    /// last deletion of it, is on no disk.
    func deletionsStayDeleted() -> [String] {
        var onDisk: [Data: [String]] = [:]
        for device in devices {
            for (path, entry) in SimulationTree.walk(device.fileSystem, root: device.root) {
                if let data = entry.content { onDisk[data, default: []].append("\(device.name):\(path)") }
            }
        }
        return ledger.writes.filter { write in
            !write.deletedBy.isEmpty && write.replacedBy == nil && !write.competesWithDeletion && onDisk[write.content] != nil
        }.map { "write w\($0.id) at \($0.path), deleted by dev\($0.deletedBy.sorted()) with no competing edit, is back (\(onDisk[$0.content]!.sorted().joined(separator: ", ")))" }
    }

    /// Each device's index lists exactly the items on its disk, with their kinds and
    /// contents, and nothing pending.
    func indexesMatchTheDisks() -> [String] {
        var problems: [String] = []
        for device in devices {
            let rows: [Row]
            do {
                var configuration = Configuration()
                configuration.readonly = true
                let queue = try DatabaseQueue(path: device.configuration.indexURL.path, configuration: configuration)
                rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT path, kind, digest, pending FROM item") }
            } catch {
                problems.append("\(device.name): cannot read its index: \(error)")
                continue
            }
            let disk = SimulationTree.walk(device.fileSystem, root: device.root)
            var indexed = Set<PathKey>()
            for row in rows {
                let path: String = row["path"], kind: String = row["kind"], pending: Int = row["pending"]
                let digest: String? = row["digest"]
                if pending != 0 { problems.append("\(device.name): \(path) is still pending (\(pending)) in its index") }
                guard pending != 2 else { continue }
                indexed.insert(PathKey(path))
                guard let entry = disk[PathKey(path)] else {
                    problems.append("\(device.name): its index has \(kind) \(path), its disk does not")
                    continue
                }
                let diskKind = switch entry.kind {
                case .directory: RecordType.folder.rawValue
                case .symlink: RecordType.symlink.rawValue
                default: RecordType.document.rawValue
                }
                if diskKind != kind { problems.append("\(device.name): its index has \(kind) \(path), its disk a \(diskKind)") }
                if kind == RecordType.document.rawValue, let digest, let data = entry.content, SHA256Digest(hashing: data).hex != digest {
                    problems.append("\(device.name): its index has other content for \(path) than its disk")
                }
            }
            for path in Set(disk.keys).subtracting(indexed).sorted() {
                problems.append("\(device.name): \(path) is on its disk but not in its index")
            }
        }
        return problems
    }

    /// No engine temporary file is left in a folder or a state directory.
    func noTemporaryFiles() -> [String] {
        devices.flatMap { device in
            [device.root, device.configuration.stateDirectory.path].flatMap { root in
                SimulationTree.walk(device.fileSystem, root: root, everything: true, contents: false).keys
                    .filter { $0.string.split(separator: "/").contains { $0.hasBytePrefix(IgnoreRules.temporaryFilePrefix) } }
                    .map { "\(device.name): temporary file \(root)/\($0) left behind" }
            }
        }
    }

    /// Every chunk a live record references is stored and hashes to its digest (the ones the
    /// simulation damaged on purpose aside).
    func chunksAreStoredAndVerify(_ records: [String: DocSyncCore.Record]) async -> [String] {
        var problems: [String] = []
        for record in records.values.sorted(by: { $0.id.recordName < $1.id.recordName }) where record.type == .document {
            guard let asset = record.asset else { continue }
            do {
                let manifest = try await store.loadManifest(asset)
                let digests = manifest.chunks.map(\.digest).filter { !corrupted.contains($0) }
                _ = try await store.downloadChunks(digests)
            } catch {
                problems.append("\(record.path): a chunk is missing or corrupt: \(error)")
            }
        }
        return problems
    }
}
