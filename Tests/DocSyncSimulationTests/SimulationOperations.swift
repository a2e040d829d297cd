import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import DocSyncWatcher
import Foundation

/// What people and the world do in a simulation, one seeded step at a time. Each person's
/// change is made durable (as an editor's fsync) and reported to the device's engine as the
/// watcher would report it.
extension Simulation {
    enum Operation: CaseIterable {
        case create, edit, appendKeepingTime, makeDirectory, moveFile, moveDirectory, deleteFile, deleteDirectory
        case bothSidesEdit, bulkCreate, bulkDelete, removeRoot, overflow, kill, partition, rateLimit, serverErrors
        case tokenExpired, droppedResponses, corruptChunk, diskFull, turns

        var weight: Int {
            switch self {
            case .create: 14
            case .edit: 12
            case .appendKeepingTime: 5
            case .makeDirectory: 5
            case .moveFile: 7
            case .moveDirectory: 4
            case .deleteFile: 6
            case .deleteDirectory: 2
            case .bothSidesEdit: 4
            case .bulkCreate: 1
            case .bulkDelete: 1
            case .removeRoot: 1
            case .overflow: 2
            case .kill: 3
            case .partition: 3
            case .rateLimit: 1
            case .serverErrors: 2
            case .tokenExpired: 1
            case .droppedResponses: 2
            case .corruptChunk: 1
            case .diskFull: 1
            case .turns: 30
            }
        }
    }

    func pick<T>(_ items: [T]) -> T? {
        items.isEmpty ? nil : items[Int(random.next() % UInt64(items.count))]
    }

    func chance(_ percent: Int) -> Bool { Int(random.next() % 100) < percent }

    func randomOperation() -> Operation {
        let total = Operation.allCases.reduce(0) { $0 + $1.weight }
        var roll = Int(random.next() % UInt64(total))
        for operation in Operation.allCases {
            if roll < operation.weight { return operation }
            roll -= operation.weight
        }
        return .turns
    }

    func perform(_ step: Int) async {
        let operation = randomOperation()
        let device = pick(devices)!
        if device.rootRemoved, operation != .turns, chance(50) { putRootBack(device) }
        switch operation {
        case .create: create(on: device, ignored: chance(5))
        case .edit: edit(on: device)
        case .appendKeepingTime: append(on: device)
        case .makeDirectory: makeDirectory(on: device)
        case .moveFile: move(on: device, directories: false)
        case .moveDirectory: move(on: device, directories: true)
        case .deleteFile: delete(on: device, directories: false)
        case .deleteDirectory: delete(on: device, directories: true)
        case .bothSidesEdit: bothSidesEdit()
        case .bulkCreate: bulkCreate(on: device)
        case .bulkDelete: bulkDelete(on: device)
        case .removeRoot: removeRoot(on: device)
        case .overflow:
            note("\(device.name) overflow")
            device.engine.noteLocal([.rescan("", reason: "simulated inotify overflow")])
        case .kill:
            let powerCut = chance(50)
            note("\(device.name) kill -9\(powerCut ? " with power cut" : "")")
            do { try device.restart(powerCut: powerCut) } catch { note("\(device.name) restart failed: \(error)") }
        case .partition: toggle(.partition, on: device)
        case .rateLimit: toggle(.rateLimit, on: device)
        case .serverErrors: toggle(.serverErrors, on: device)
        case .droppedResponses: toggle(.droppedResponses, on: device)
        case .tokenExpired:
            let compacted = store.compactTombstones(deletedThrough: clock.now)
            note("store compacts tombstones (\(compacted)): old change tokens expire")
        case .corruptChunk: await corruptChunk()
        case .diskFull:
            device.setDiskFull(!device.diskFull)
            note("\(device.name) disk \(device.diskFull ? "full" : "has room again")")
        case .turns:
            await runTurns(1 + Int(random.next() % 12))
        }
    }

    func toggle(_ fault: SimulatedDevice.BackendFault, on device: SimulatedDevice) {
        if device.faults.remove(fault) == nil { device.faults.insert(fault) }
        device.applyFaults()
        note("\(device.name) \(fault.rawValue) \(device.faults.contains(fault) ? "on" : "off")")
    }

    // MARK: the folder as a person sees it

    /// Items under the device's root (relative paths, sorted by their bytes), without the
    /// marker and engine temporary files.
    func items(on device: SimulatedDevice, kind: FileStat.Kind? = nil) -> [String] {
        SimulationTree.walk(device.fileSystem, root: device.root, contents: false).filter { kind == nil || $0.value.kind == kind }.keys.sorted().map(\.string)
    }

    /// The name of the file numbered `number` (0–5), and of the directory numbered `number`
    /// (0–3). The last two of each are one name written in NFD and in NFC, which Linux
    /// holds as two (SPEC §4a "Paths are bytes"): `f4e\u{301}.txt` and `f4\u{E9}.txt`,
    /// `d2e\u{301}` and `d2\u{E9}`. In byte order they take the places `f4`/`f5` and
    /// `d2`/`d3` had, so the items a seed picks from are ordered as before.
    static func fileName(_ number: UInt64) -> String {
        switch number {
        case 4: "f4e\u{301}.txt"
        case 5: "f4\u{E9}.txt"
        default: "f\(number).txt"
        }
    }

    static func directoryName(_ number: UInt64) -> String {
        switch number {
        case 2: "d2e\u{301}"
        case 3: "d2\u{E9}"
        default: "d\(number)"
        }
    }

    func content(on device: SimulatedDevice, _ relative: String) -> Data? {
        device.fileSystem.contents(device.root + "/" + relative)
    }

    func parent(of relative: String) -> String? {
        relative.lastIndex(of: "/").map { String(relative[..<$0]) }
    }

    func join(_ directory: String?, _ name: String) -> String { directory.map { $0 + "/" + name } ?? name }

    /// A new unique content, mostly small, sometimes several chunks long.
    func newContent(by device: SimulatedDevice) -> Data {
        var text = "w\(ledger.nextID) by \(device.name) at step \(log.count)\n"
        let length = chance(10) ? 8_000 + Int(random.next() % 30_000) : Int(random.next() % 300)
        let letters = Array("abcdefghijklmnopqrstuvwxyz \n".utf8)
        var bytes = [UInt8](repeating: 0, count: length)
        for index in 0..<length { bytes[index] = letters[Int(random.next() % UInt64(letters.count))] }
        text += String(decoding: bytes, as: UTF8.self)
        return Data(text.utf8)
    }

    /// Writes `data` as the file at `relative`, durably, as a careful editor saves: a new
    /// file beside it renamed over it, so a failed save (a full disk) leaves the old content.
    /// Returns whether it did. (The new file lives only within this call: no engine turn sees it.)
    @discardableResult
    func writeFile(_ data: Data, at relative: String, on device: SimulatedDevice) -> Bool {
        let fs = device.fileSystem
        let path = device.root + "/" + relative
        let directory = String(path[..<path.lastIndex(of: "/")!])
        let staging = directory + "/.sim-save"
        do throws(FileSystemError) {
            if let found = try fs.status(path), found.kind != .file { return false }
            let file = try fs.createFile(staging, mode: 0o644, size: data.count)
            defer { file.close() }
            do throws(FileSystemError) {
                try file.append(data)
                try file.finish(mode: 0o644, modified: clock.now, flush: true)
                try fs.rename(staging, to: path)
            } catch {
                try? fs.removeFile(staging)
                throw error
            }
            try fs.flushDirectory(directory)
            return true
        } catch {
            note("\(device.name) could not write \(relative): errno \(error.code)")
            return false
        }
    }

    /// A person's write of a new content at `relative` on `device`, recorded in the ledger.
    func personWrites(_ relative: String, on device: SimulatedDevice) {
        let previous = content(on: device, relative)
        let data = newContent(by: device)
        guard writeFile(data, at: relative, on: device) else { return }
        if !SimulationTree.isIgnored(relative) {
            ledger.record(device: device.index, path: relative, content: data, previous: previous)
        }
        note("\(device.name) \(previous == nil ? "creates" : "writes") \(relative) (w\(ledger.nextID - 1), \(data.count) bytes)")
        device.engine.noteLocal([.changed(relative)])
    }

    // MARK: operations

    func create(on device: SimulatedDevice, ignored: Bool) {
        let directory = pick([nil] + items(on: device, kind: .directory).map(Optional.some)) ?? nil
        let name = ignored ? "scratch\(random.next() % 3).swp" : Self.fileName(random.next() % 6)
        personWrites(join(directory, name), on: device)
    }

    func edit(on device: SimulatedDevice) {
        guard let file = pick(items(on: device, kind: .file)) else { return create(on: device, ignored: false) }
        personWrites(file, on: device)
    }

    func append(on device: SimulatedDevice) {
        guard let file = pick(items(on: device, kind: .file)), let previous = content(on: device, file) else { return }
        let extra = Data("appended w\(ledger.nextID) by \(device.name)\n".utf8)
        do throws(FileSystemError) {
            try device.fileSystem.append(extra, to: device.root + "/" + file, keepingModified: true, flush: true)
        } catch {
            note("\(device.name) could not append to \(file): errno \(error.code)")
            return
        }
        if !SimulationTree.isIgnored(file) { ledger.record(device: device.index, path: file, content: previous + extra, previous: previous) }
        note("\(device.name) appends to \(file) keeping its mtime (w\(ledger.nextID - 1))")
        device.engine.noteLocal([.changed(file)])
    }

    func makeDirectory(on device: SimulatedDevice) {
        let directory = pick([nil] + items(on: device, kind: .directory).map(Optional.some)) ?? nil
        let relative = join(directory, Self.directoryName(random.next() % 4))
        let path = device.root + "/" + relative
        do throws(FileSystemError) {
            try device.fileSystem.makeDirectory(path, mode: 0o755)
            try device.fileSystem.flushDirectory(String(path[..<path.lastIndex(of: "/")!]))
        } catch {
            return
        }
        note("\(device.name) makes directory \(relative)")
        device.engine.noteLocal([.directoryAppeared(relative)])
    }

    /// Renames a file or a directory, into another directory sometimes (a directory into
    /// another one too), never into itself.
    func move(on device: SimulatedDevice, directories: Bool) {
        guard let source = pick(items(on: device, kind: directories ? .directory : .file)) else { return }
        let targets = ([nil] + items(on: device, kind: .directory).map(Optional.some)).filter { target in
            guard let target else { return true }
            return !target.isSamePathOrBeneath(source)
        }
        let directory = pick(targets) ?? nil
        let name = directories ? Self.directoryName(random.next() % 4) : Self.fileName(random.next() % 6)
        let target = join(directory, name)
        guard !target.bytesEqual(source) else { return }
        let moved = SimulationTree.walk(device.fileSystem, root: device.root + "/" + source)
        let sourceContent = directories ? nil : content(on: device, source)
        let replaced = directories ? nil : content(on: device, target)
        let from = device.root + "/" + source, to = device.root + "/" + target
        do throws(FileSystemError) {
            if directories, try device.fileSystem.status(to) != nil { return }
            try device.fileSystem.rename(from, to: to)
            try device.fileSystem.flushDirectory(String(from[..<from.lastIndex(of: "/")!]))
            try device.fileSystem.flushDirectory(String(to[..<to.lastIndex(of: "/")!]))
        } catch {
            return
        }
        for (path, entry) in moved where entry.kind != .directory {
            ledger.moved(entry.content, from: source + "/" + path.string, to: target + "/" + path.string, by: device.index)
        }
        if !directories { ledger.moved(sourceContent, from: source, to: target, by: device.index) }
        if let replaced { recordDeletions([replaced], on: device) }
        note("\(device.name) moves \(directories ? "directory " : "")\(source) to \(target)")
        device.engine.noteLocal([.moved(from: source, to: target)])
    }

    func delete(on device: SimulatedDevice, directories: Bool) {
        guard let victim = pick(items(on: device, kind: directories ? .directory : .file)) else { return }
        removeTree(victim, on: device)
        note("\(device.name) deletes \(directories ? "directory " : "")\(victim)")
    }

    /// Longer paths first (an item before the folder holding it), then byte order.
    static func deepestFirst(_ a: (key: PathKey, value: SimulationTree.Entry), _ b: (key: PathKey, value: SimulationTree.Entry)) -> Bool {
        let (left, right) = (a.key.string.utf8.count, b.key.string.utf8.count)
        return left != right ? left > right : a.key < b.key
    }

    /// Removes `relative` and everything beneath it, deepest first, reporting each removal.
    func removeTree(_ relative: String, on device: SimulatedDevice) {
        let fs = device.fileSystem
        let inside = SimulationTree.walk(fs, root: device.root + "/" + relative, everything: true)
        var events: [WatchEvent] = []
        var removed: [Data] = []
        for (path, entry) in inside.sorted(by: Self.deepestFirst) {
            let absolute = device.root + "/" + relative + "/" + path.string
            if entry.kind == .directory { try? fs.removeDirectory(absolute) } else { try? fs.removeFile(absolute) }
            if let data = entry.content { removed.append(data) }
            events.append(.removed(relative + "/" + path.string))
        }
        let absolute = device.root + "/" + relative
        if let data = fs.contents(absolute), (try? fs.status(absolute))??.kind == .file { removed.append(data) }
        if (try? fs.status(absolute))??.kind == .directory { try? fs.removeDirectory(absolute) } else { try? fs.removeFile(absolute) }
        try? fs.flushDirectory(String(absolute[..<absolute.lastIndex(of: "/")!]))
        recordDeletions(removed, on: device)
        events.append(.removed(relative))
        device.engine.noteLocal(events)
    }

    /// `contents` that `device` just removed (deleted, or replaced by a move over them): each
    /// counts as deleted by it unless the same content is still elsewhere on its disk — a
    /// file moved over its twin, a copy at another path — which deletes nothing of it.
    func recordDeletions(_ contents: [Data], on device: SimulatedDevice) {
        guard !contents.isEmpty else { return }
        let remaining = Set(SimulationTree.walk(device.fileSystem, root: device.root).values.compactMap(\.content))
        for data in contents where !remaining.contains(data) { ledger.deleted(data, by: device.index) }
    }

    /// The same file written on two devices before either syncs.
    func bothSidesEdit() {
        let first = pick(devices)!
        guard let file = pick(items(on: first, kind: .file)) else { return }
        let others = devices.filter { $0 !== first && $0.fileSystem.contents($0.root + "/" + file) != nil }
        guard let second = pick(others) else { return }
        note("both-sides edit of \(file) on \(first.name) and \(second.name)")
        personWrites(file, on: first)
        personWrites(file, on: second)
    }

    /// A directory of 120 small files (a later `bulkDelete` is a mass deletion).
    func bulkCreate(on device: SimulatedDevice) {
        let directory = "bulk\(random.next() % 2)"
        guard (try? device.fileSystem.status(device.root + "/" + directory)) ?? nil == nil else { return }
        do throws(FileSystemError) {
            try device.fileSystem.makeDirectory(device.root + "/" + directory, mode: 0o755)
            try device.fileSystem.flushDirectory(device.root)
        } catch {
            return
        }
        note("\(device.name) creates \(directory) with 120 files")
        for index in 0..<120 {
            let relative = directory + "/n\(index).txt"
            let data = Data("bulk \(index) w\(ledger.nextID) by \(device.name)\n".utf8)
            guard writeFile(data, at: relative, on: device) else { break }
            ledger.record(device: device.index, path: relative, content: data, previous: nil)
        }
        device.engine.noteLocal([.directoryAppeared(directory)])
    }

    func bulkDelete(on device: SimulatedDevice) {
        guard let directory = items(on: device, kind: .directory).first(where: { $0.hasPrefix("bulk") && !$0.contains("/") }) else { return }
        let count = SimulationTree.walk(device.fileSystem, root: device.root + "/" + directory, contents: false).count
        removeTree(directory, on: device)
        note("\(device.name) deletes \(directory) with \(count) items")
    }

    /// The whole folder is removed; it is put back (empty) by a later step or by healing.
    func removeRoot(on device: SimulatedDevice) {
        guard !device.rootRemoved else { return }
        let fs = device.fileSystem
        for (path, entry) in SimulationTree.walk(fs, root: device.root, everything: true).sorted(by: Self.deepestFirst) {
            let absolute = device.root + "/" + path.string
            if entry.kind == .directory { try? fs.removeDirectory(absolute) } else { try? fs.removeFile(absolute) }
            if let data = entry.content { ledger.deleted(data, by: device.index) }
        }
        for name in (try? fs.entryNames(device.root)) ?? [] { try? fs.removeFile(device.root + "/" + String(decoding: name, as: UTF8.self)) }
        try? fs.removeDirectory(device.root)
        try? fs.flushDirectory(String(device.root[..<device.root.lastIndex(of: "/")!]))
        device.rootRemoved = true
        note("\(device.name) removes the whole folder")
        device.engine.noteLocal([.rescan("", reason: "the root went away")])
    }

    func putRootBack(_ device: SimulatedDevice) {
        do throws(FileSystemError) {
            try device.fileSystem.makeDirectory(device.root, mode: 0o755)
            try device.fileSystem.flushDirectory(String(device.root[..<device.root.lastIndex(of: "/")!]))
        } catch {
            note("\(device.name) could not put the folder back: errno \(error.code)")
            return
        }
        device.rootRemoved = false
        note("\(device.name) puts the folder back, empty")
        device.engine.noteLocal([.rescan("", reason: "the root came back")])
    }

    /// Damages one stored chunk of a live document (the store keeps answering that it has it).
    func corruptChunk() async {
        guard let document = await SimulationTree.storeRecords(store).values.filter({ $0.type == .document && $0.size > 0 })
            .sorted(by: { $0.id.recordName < $1.id.recordName }).randomElement(using: &random),
              let digest = document.contentDigest else { return }
        // A single-chunk document's chunk is its content's digest.
        guard document.size < 2_048, store.corruptChunk(digest) else { return }
        corrupted.insert(digest)
        note("store corrupts the chunk of \(document.path)")
    }
}
