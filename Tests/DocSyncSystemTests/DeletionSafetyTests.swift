import DocSyncControl
import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §4a with two real daemons, over the embedded `file://` backend and over a real
/// `docsync-server`: a folder that looks missing or replaced is held, a mass deletion is
/// braked, and a person's choice (`docs-status deletions --confirm | --restore`) ends both
/// converged. The other device is checked file by file.
@Suite("Deletion safety with two daemons", .serialized)
struct DeletionSafetyTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case embedded, server
        var testDescription: String { rawValue }
    }

    /// Two devices, running, both holding the same `count` files (and `extra` more steps).
    struct Devices {
        let pair: DevicePair
        let server: ServerProcess?
        let data: TemporaryDirectory?

        var a: DaemonProcess { pair.a }
        var b: DaemonProcess { pair.b }

        static func start(_ backend: Backend, files: Int) async throws -> Devices {
            let devices: Devices
            switch backend {
            case .embedded:
                devices = Devices(pair: try DevicePair(), server: nil, data: nil)
            case .server:
                let data = try TemporaryDirectory("docsync-server-data")
                let server = try await ServerProcess(dataDirectory: data.url)
                devices = Devices(pair: try await DevicePair(server: server, user: "ana"), server: server, data: data)
            }
            for number in 0..<files {
                try "file \(number)\n".write(to: devices.a.file(Self.name(number)), atomically: false, encoding: .utf8)
            }
            try devices.pair.startBoth()
            await devices.pair.converge("the first sync of \(files) files", also: { syncedNames(devices.b.folder).count == files })
            #expect(try await devices.a.waitSettled())
            #expect(try await devices.b.waitSettled())
            return devices
        }

        static func name(_ number: Int) -> String { "f\(String(format: "%03d", number)).txt" }

        func docsStatus(_ device: DaemonProcess, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
            try await runProcess(builtProduct("docs-status"), arguments + ["--socket", device.socket])
        }

        /// The folder state `device` reports.
        func state(_ device: DaemonProcess) async throws -> FolderState? {
            try await device.status()?.folders.first?.state
        }

        /// Waits until beta has fetched past everything alpha sent so far: alpha writes a new
        /// file (into `folder`, when given), and beta has it and has settled. Deletions alpha
        /// had sent before would have reached beta by then.
        func heardFromAlphaSince(_ moment: String, in folder: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let name = (folder.map { $0 + "/" } ?? "") + "written after \(moment).txt"
            try "probe\n".write(to: a.file(name), atomically: false, encoding: .utf8)
            #expect(await eventually(timeout: .seconds(60)) { contents(b.file(name)) == "probe\n" }, "beta got alpha's file written after \(moment)",
                    sourceLocation: sourceLocation)
            #expect(try await b.waitSettled(), sourceLocation: sourceLocation)
        }

        /// For a held alpha (it sends nothing at all, so beta cannot hear from it): its status
        /// shows the folder held, and the store still holds the `records` both devices had.
        /// Anything alpha sent before its status said held is in the store by then; once
        /// held, its loop sends nothing until the folder is back or a person chooses.
        func nothingSentWhileHeld(records: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let folder = try await a.status()?.folders.first
            #expect(folder?.state == .held && folder?.held != nil, "\(String(describing: folder))", sourceLocation: sourceLocation)
            #expect(try await pair.records().count == records, "nothing of what alpha holds reached the store", sourceLocation: sourceLocation)
            #expect(try await b.waitSettled(), sourceLocation: sourceLocation)
            #expect(syncedNames(b.folder).count == records, "the other device keeps every file", sourceLocation: sourceLocation)
        }
    }

    // MARK: held folders

    @Test(arguments: Backend.allCases)
    func aRootMovedAwayIsHeldAndResumesWhenItIsBack(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 30)
        let away = devices.pair.base.url.appendingPathComponent("alpha/away")
        try FileManager.default.moveItem(at: devices.a.folder, to: away)
        #expect(await eventually { (try? await devices.state(devices.a)) == .held })
        let status = try await devices.a.status()
        #expect(status?.folders.first?.held?.reason == "rootMissing")
        #expect(status?.folders.first?.held?.items == 30)
        let wait = try await devices.docsStatus(devices.a, ["wait", "--timeout", "30"])
        #expect(wait.status == 5, "wait returns at once, exit 5 while held: \(wait.errors)")
        #expect(wait.errors.contains("is missing"))
        let errors = try await devices.docsStatus(devices.a, ["errors"])
        #expect(errors.output.contains("held") || errors.output.contains("missing"), "errors says why: \(errors.output)")
        #expect(!FileManager.default.fileExists(atPath: devices.a.folder.path), "a missing root is never created")
        #expect(syncedNames(devices.b.folder).count == 30, "the other device keeps every file")

        try FileManager.default.moveItem(at: away, to: devices.a.folder)
        #expect(await eventually(timeout: .seconds(30)) { (try? await devices.state(devices.a)).map { $0 != .held } ?? false }, "resumes by itself (the root is looked at every second)")
        #expect(try await devices.a.waitSettled())
        try "after\n".write(to: devices.a.file("after.txt"), atomically: false, encoding: .utf8)
        await devices.pair.converge("a change after the folder came back", also: { contents(devices.b.file("after.txt")) == "after\n" })
        #expect(syncedNames(devices.b.folder).count == 31)

        // Missing when the daemon starts: it starts held, and resumes when the folder is back.
        await devices.a.stop()
        try FileManager.default.moveItem(at: devices.a.folder, to: away)
        try devices.a.start()
        // A daemon starting while 32 tests run on two cores may take more than 10 s to answer.
        #expect(await eventually(timeout: .seconds(30)) { (try? await devices.state(devices.a)) == .held })
        #expect(!FileManager.default.fileExists(atPath: devices.a.folder.path))
        try FileManager.default.moveItem(at: away, to: devices.a.folder)
        #expect(await eventually(timeout: .seconds(30)) { (try? await devices.state(devices.a)).map { $0 != .held } ?? false }, "resumes by itself (the root is looked at every second)")
        #expect(try await devices.a.waitSettled())
        try "watched again\n".write(to: devices.a.file("later.txt"), atomically: false, encoding: .utf8)
        await devices.pair.converge("a change once the folder is watched", also: { contents(devices.b.file("later.txt")) == "watched again\n" })
        await devices.pair.stopBoth()
    }

    @Test(arguments: Backend.allCases)
    func aFolderDeletedOnPurposeIsDeletedEverywhereOnceConfirmed(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 12)
        try FileManager.default.removeItem(at: devices.a.folder)
        #expect(await eventually { (try? await devices.state(devices.a)) == .held })
        let restore = try await devices.docsStatus(devices.a, ["deletions", "--restore"])
        #expect(restore.status == 1 && restore.output.contains("refused"), "nothing is written where the folder is not: \(restore.output)")
        let confirm = try await devices.docsStatus(devices.a, ["--json", "deletions", "--confirm"])
        #expect(confirm.status == 0, "\(confirm.output)\(confirm.errors)")
        let outcomes = try ControlFraming.makeDecoder().decode([ActionOutcome].self, from: Data(confirm.output.utf8))
        // `rm -rf` deletes files before their folder: a few may have gone out as ordinary
        // deletions (12 items are too few for the brake) before the root vanished.
        #expect(!outcomes.isEmpty && outcomes.count <= 12 && outcomes.allSatisfy(\.done), "\(outcomes)")
        #expect(await eventually { syncedNames(devices.b.folder).isEmpty }, "deleted on the other device")
        #expect(await eventually { (try? await devices.state(devices.a)) == .error }, "no folder to sync, and none is created")
        #expect(!FileManager.default.fileExists(atPath: devices.a.folder.path))
        // A folder made there later joins the zone afresh.
        try FileManager.default.createDirectory(at: devices.a.folder, withIntermediateDirectories: false)
        try "after\n".write(to: devices.b.file("after.txt"), atomically: false, encoding: .utf8)
        await devices.pair.converge("a new folder joined", also: { contents(devices.a.file("after.txt")) == "after\n" })
        await devices.pair.stopBoth()
    }

    @Test(arguments: Backend.allCases)
    func aFolderEmptiedByItsUserIsBraked(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 120)
        try await shell("rm -rf ./*", in: devices.a.folder)  // the marker (a dot file) stays
        #expect(await eventually { (try? await devices.state(devices.a)) == .deletionsHeld })
        #expect(try await devices.a.status()?.folders.first?.held?.items == 120)
        // Everything else keeps syncing: once beta has a file alpha wrote after the deletions
        // were held, it has fetched whatever alpha sent before it.
        try await devices.heardFromAlphaSince("the deletions were held")
        #expect(syncedNames(devices.b.folder).count == 121, "the other device keeps every file")
        #expect(try await devices.pair.records().count == 121, "no deletion reached the store")
        await devices.pair.stopBoth()
    }

    @Test(arguments: Backend.allCases)
    func aFolderEmptiedWhileItsDaemonWasStoppedIsHeldAndRestored(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 40)
        await devices.a.stop()
        // What an unmounted disk's mount point or a restored empty home looks like.
        try FileManager.default.moveItem(at: devices.a.folder, to: devices.pair.base.url.appendingPathComponent("alpha/disk"))
        try FileManager.default.createDirectory(at: devices.a.folder, withIntermediateDirectories: false)
        try devices.a.start()
        #expect(await eventually { (try? await devices.state(devices.a)) == .held })
        #expect(try await devices.a.status()?.folders.first?.held?.reason == "markerMissing")
        let listed = try await devices.docsStatus(devices.a, ["deletions", "--json"])
        let held = try ControlFraming.makeDecoder().decode([HeldFolder].self, from: Data(listed.output.utf8))
        #expect(held.first?.total == 40)
        #expect(held.first?.items.count == 40)
        try await devices.nothingSentWhileHeld(records: 40)

        let restore = try await devices.docsStatus(devices.a, ["deletions", "--restore"])
        #expect(restore.status == 0, "\(restore.output)\(restore.errors)")
        #expect(restore.output.contains("brought back"))
        await devices.pair.converge("restored from the backend", also: { syncedNames(devices.a.folder).count == 40 })
        #expect(contents(devices.a.file(Devices.name(7))) == "file 7\n")
        #expect(FileManager.default.fileExists(atPath: devices.a.file(IgnoreRules.rootMarkerName).path), "the marker is back")
        #expect(try await devices.a.waitSettled())
        await devices.pair.stopBoth()
    }

    @Test(arguments: Backend.allCases)
    func aRemovedMarkerHoldsTheFolderUntilConfirmed(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 10)
        try FileManager.default.removeItem(at: devices.a.file(IgnoreRules.rootMarkerName))
        // Written before the deletion, so that it cannot take the deleted file's inode (and
        // look like it renamed).
        try "written while held\n".write(to: devices.a.file("new.txt"), atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(at: devices.a.file(Devices.name(3)))
        #expect(await eventually { (try? await devices.state(devices.a)) == .held })
        try await devices.nothingSentWhileHeld(records: 10)

        let confirm = try await devices.docsStatus(devices.a, ["deletions", "--confirm"])
        #expect(confirm.status == 0, "\(confirm.output)\(confirm.errors)")
        #expect(confirm.output.contains(Devices.name(3)), "the one missing file is the one deletion: \(confirm.output)\n\(devices.a.logText().suffix(6000))")
        await devices.pair.converge("confirmed", also: {
            !FileManager.default.fileExists(atPath: devices.b.file(Devices.name(3)).path) && contents(devices.b.file("new.txt")) != nil
        })
        #expect(syncedNames(devices.b.folder).count == 10)
        #expect(FileManager.default.fileExists(atPath: devices.a.file(IgnoreRules.rootMarkerName).path))
        await devices.pair.stopBoth()
    }

    // MARK: the brake

    @Test(arguments: Backend.allCases)
    func deletionsJustBelowTheBrakeAreSent(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 200)
        for number in 0..<99 { try FileManager.default.removeItem(at: devices.a.file(Devices.name(number))) }
        await devices.pair.converge("99 of 200 deleted", also: { syncedNames(devices.b.folder).count == 101 })
        #expect(try await devices.a.waitSettled())
        await devices.pair.stopBoth()
    }

    @Test(arguments: Backend.allCases)
    func deletionsAtTheBrakeAreHeldAcrossARestartUntilConfirmed(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 200)
        try FileManager.default.createDirectory(at: devices.a.file("kept"), withIntermediateDirectories: false)
        #expect(await eventually { FileManager.default.fileExists(atPath: devices.b.file("kept").path) })
        // 101 of 201 items: at least half, and at least 100.
        for number in 0..<101 { try FileManager.default.removeItem(at: devices.a.file(Devices.name(number))) }
        #expect(await eventually { (try? await devices.state(devices.a)) == .deletionsHeld })
        let status = try await devices.a.status()?.folders.first
        #expect(status?.held?.reason == HeldDeletions.brake)
        #expect(status?.held?.items == 101)
        // Everything else keeps syncing.
        try "still syncing\n".write(to: devices.a.file("kept/new.txt"), atomically: false, encoding: .utf8)
        #expect(await eventually { contents(devices.b.file("kept/new.txt")) == "still syncing\n" })
        #expect(syncedNames(devices.b.folder).count == 201, "no deletion reached the other device")
        #expect(try await devices.docsStatus(devices.a, ["wait", "--timeout", "30"]).status == 5)
        let errors = try await devices.docsStatus(devices.a, ["errors"])
        #expect(errors.output.contains("101 local deletions held"), "\(errors.output)")

        await devices.a.stop()
        try devices.a.start()
        #expect(await eventually { (try? await devices.state(devices.a)) == .deletionsHeld }, "held state survives a restart")
        try await devices.heardFromAlphaSince("the restart", in: "kept")
        #expect(syncedNames(devices.b.folder).count == 201, "no deletion reached the other device")
        #expect(try await devices.pair.records().count == 203, "nor the store (the 201 items, and two files written in kept/)")

        let confirm = try await devices.docsStatus(devices.a, ["--json", "deletions", "--confirm"])
        #expect(confirm.status == 0, "\(confirm.errors)")
        let outcomes = try ControlFraming.makeDecoder().decode([ActionOutcome].self, from: Data(confirm.output.utf8))
        #expect(outcomes.count == 101 && outcomes.allSatisfy(\.done))
        await devices.pair.converge("confirmed", also: { syncedNames(devices.b.folder).count == 100 })
        #expect(try await devices.a.waitSettled())
        await devices.pair.stopBoth()
    }

    @Test(arguments: Backend.allCases)
    func deletionsArrivingInPiecesAreCountedWholeAndRestored(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 200)
        for number in 0..<60 { try FileManager.default.removeItem(at: devices.a.file(Devices.name(number))) }
        // The first piece is recorded, and waits (the brake's quiet period) for what may follow.
        #expect(await eventually { (try? await devices.a.status()?.folders.first?.pendingUploads) == 60 }, "alpha recorded the first 60 deletions")
        for number in 60..<120 { try FileManager.default.removeItem(at: devices.a.file(Devices.name(number))) }
        #expect(await eventually { (try? await devices.state(devices.a)) == .deletionsHeld })
        #expect(try await devices.a.status()?.folders.first?.held?.items == 120)
        #expect(syncedNames(devices.b.folder).count == 200, "no deletion reached the other device")

        let restore = try await devices.docsStatus(devices.a, ["deletions", "--restore"])
        #expect(restore.status == 0, "\(restore.output)\(restore.errors)")
        await devices.pair.converge("restored", also: { syncedNames(devices.a.folder).count == 200 })
        #expect(contents(devices.a.file(Devices.name(100))) == "file 100\n")
        #expect(try await devices.a.waitSettled())
        await devices.pair.stopBoth()
    }

    // MARK: joining

    @Test func aBackendReplacedByAnEmptyOneGetsTheFolderAgainAndNothingIsDeleted() async throws {
        let devices = try await Devices.start(.embedded, files: 20)
        await devices.pair.stopBoth()
        try FileManager.default.removeItem(at: devices.pair.backendDirectory)
        try "made while stopped\n".write(to: devices.b.file("new.txt"), atomically: false, encoding: .utf8)
        try devices.pair.startBoth()
        await devices.pair.converge("both devices upload again", also: { syncedNames(devices.a.folder).count == 21 })
        #expect(syncedNames(devices.b.folder).count == 21, "no local file was deleted")
        #expect(try await devices.pair.records().count == 21, "the backend holds the folder again, once")
        #expect(try await devices.a.waitSettled())
        #expect(try await devices.b.waitSettled())
        await devices.pair.stopBoth()
    }

    @Test(arguments: Backend.allCases)
    func aStaleBackupJoiningKeepsTheServerVersionsAndSendsNoDeletion(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 5)
        await devices.a.stop()
        // Beta's folder is replaced by a stale backup: older copies of two files, a newer
        // edit of a third, an identical fourth, the fifth missing, and its index gone.
        await devices.b.stop()
        try FileManager.default.removeItem(at: devices.b.folder)
        try FileManager.default.removeItem(at: devices.b.stateDirectory)
        try FileManager.default.createDirectory(at: devices.b.folder, withIntermediateDirectories: false)
        let past = Date(timeIntervalSinceNow: -30 * 86_400), future = Date(timeIntervalSinceNow: 3_600)
        for (number, text, date) in [(0, "old 0\n", past), (1, "old 1\n", past), (2, "newer 2\n", future), (3, "file 3\n", past)] {
            let url = devices.b.file(Devices.name(number))
            try text.write(to: url, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
        }
        try devices.pair.startBoth()
        await devices.pair.converge("joined", also: { syncedNames(devices.a.folder).count == 6 })
        #expect(contents(devices.b.file(Devices.name(0))) == "file 0\n", "the server's version replaces an older copy")
        #expect(contents(devices.b.file(Devices.name(1))) == "file 1\n")
        #expect(contents(devices.b.file(Devices.name(4))) == "file 4\n", "an absent file is not a deletion")
        #expect(contents(devices.b.file(Devices.name(3))) == "file 3\n")
        let copies = syncedNames(devices.a.folder).filter { ConflictName.isConflictCopy($0) }
        #expect(copies.count == 1, "only the newer edit is kept beside: \(copies)")
        #expect(copies.first.flatMap { contents(devices.a.file($0)) } == "newer 2\n")
        let versions = try await devices.docsStatus(devices.b, ["--json", "versions", devices.b.file(Devices.name(0)).path])
        let kept = try ControlFraming.makeDecoder().decode([VersionEntry].self, from: Data(versions.output.utf8))
        #expect(kept.count == 1, "the older copy went to the version store: \(versions.output)\(versions.errors)")
        await devices.pair.stopBoth()
    }

    @Test(arguments: Backend.allCases)
    func aStaleBackupJoiningDoesNotBringBackWhatWasDeletedElsewhere(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 5)
        for number in [1, 2] { try FileManager.default.removeItem(at: devices.a.file(Devices.name(number))) }
        await devices.pair.converge("two files deleted on alpha", also: { syncedNames(devices.b.folder).count == 3 })
        #expect(try await devices.a.waitSettled())
        // Beta's folder is replaced by a backup made before the deletions, with one of the
        // deleted files edited since, and its index gone: beta joins again.
        await devices.b.stop()
        try FileManager.default.removeItem(at: devices.b.folder)
        try FileManager.default.removeItem(at: devices.b.stateDirectory)
        try FileManager.default.createDirectory(at: devices.b.folder, withIntermediateDirectories: false)
        for number in 0..<5 {
            try (number == 2 ? "edited in the backup\n" : "file \(number)\n").write(to: devices.b.file(Devices.name(number)), atomically: false, encoding: .utf8)
        }
        try devices.b.start()
        await devices.pair.converge("joined", also: { contents(devices.a.file(Devices.name(2))) == "edited in the backup\n" })
        #expect(try await devices.b.waitSettled())
        #expect(!FileManager.default.fileExists(atPath: devices.a.file(Devices.name(1)).path), "what alpha deleted stays deleted")
        #expect(!FileManager.default.fileExists(atPath: devices.b.file(Devices.name(1)).path), "beta's stale copy left its folder")
        #expect(Set(try await devices.pair.records().values) == Set([0, 2, 3, 4].map(Devices.name)), "the edit beats the deletion; nothing else came back")
        let versions = try await devices.docsStatus(devices.b, ["--json", "versions", devices.b.file(Devices.name(1)).path])
        let kept = try ControlFraming.makeDecoder().decode([VersionEntry].self, from: Data(versions.output.utf8))
        #expect(kept.map(\.reason) == ["deleted"], "beta keeps its stale copy in the version store: \(versions.output)\(versions.errors)")
        await devices.pair.stopBoth()
    }
}
