import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// A shared folder attached on demand whose share ends (SPEC §11, §14), as real processes: a
/// docsync-server, the owner's daemon and the participant's daemon with `--mode on-demand`.
/// Once the share ends the participant's folder is unmounted, what was local stays at the
/// folder's path as plain files, what was not is gone (no placeholder left) and `docs-status`
/// lists it; all of it holds after the daemon starts again.
@Suite("a shared folder on demand whose share ends", .serialized, .enabled(if: fuseAvailable, "/dev/fuse is missing: FUSE cannot mount here"))
struct OnDemandShareDetachSystemTests {
    typealias Accounts = ShareCommandSystemTests.Accounts

    /// `DetachedOnDemandFolder.notLocalMessage` (internal to the daemon): the problem the
    /// folder's status gives each document that was not local when the share ended.
    static let notLocalMessage = "not on this device: the share ended before it was downloaded"

    static let plan = "alice's plan\n"
    /// Large enough to be worth leaving remote; never read on bob's device.
    static let photo = seededBytes(3_000_000, seed: 39)

    /// The owner's device, with `plan.txt` and `photos/holiday.raw`, started, settled and
    /// sharing Docs with bob; bob's device attaches the share on demand and shows both files
    /// through its mount. Then `body`; every daemon is stopped and any mount left detached.
    func withShareOnDemand(_ name: String, _ body: (Accounts, DaemonProcess, DaemonProcess) async throws -> Void) async throws {
        let accounts = try await Accounts.start(["alice", "bob"], name)
        let alice = try accounts.daemon("alice")
        try Self.plan.write(to: alice.file("plan.txt"), atomically: false, encoding: .utf8)
        try FileManager.default.createDirectory(at: alice.file("photos"), withIntermediateDirectories: true)
        try Self.photo.write(to: alice.file("photos/holiday.raw"))
        let bob = try accounts.daemon("bob", ["--share", "alice/Docs", "--mode", "on-demand"])
        try await closing({
            let bobWasRunning = bob.isRunning
            let bobStatus = await bob.stop()
            await alice.stop()
            if await bob.unmountLeftover(), bobWasRunning, bobStatus == 0 {
                Issue.record("bob's daemon stopped cleanly but left a mount at \(bob.folder.path)")
            }
            _ = try? await accounts.server.stop()
        }) {
            try alice.start()
            #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.waitSettled() })
            #expect(try await alice.docsStatus(["share", "Docs", "--with", "bob"]).status == 0)

            try bob.start()
            try #require(await bob.waitMounted(), "bob's folder is not mounted:\n\(bob.logTextWithoutRequests().suffix(3000))")
            let shown = await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
                lstatus(bob.file("plan.txt").path)?.st_size == Int(Self.plan.utf8.count)
                    && lstatus(bob.file("photos/holiday.raw").path)?.st_size == Int(Self.photo.count)
            }
            try #require(shown, "the share's files show through bob's mount:\n\(bob.logTextWithoutRequests().suffix(3000))")
            try await body(accounts, alice, bob)
        }
    }

    /// bob's folder status, from `docs-status --json`.
    func folderStatus(of bob: DaemonProcess) async throws -> FolderStatus? {
        try await bob.status()?.folders.first { $0.path == bob.folder.path }
    }

    /// What must hold on bob's device once the share ended: nothing mounted, plan.txt a
    /// plain file with its content, holiday.raw and its placeholder gone, and the status
    /// saying "no longer shared" and listing holiday.raw as not on this device.
    func expectDetached(_ bob: DaemonProcess, how: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(!bob.isMounted, "\(how): not mounted", sourceLocation: sourceLocation)
        #expect(bob.folderMountTypes.isEmpty, "\(how): nothing in the mount table at the folder: \(bob.folderMountTypes)", sourceLocation: sourceLocation)
        let plan = lstatus(bob.file("plan.txt").path)
        #expect(plan.map { $0.st_mode & S_IFMT == S_IFREG } == true, "\(how): plan.txt is a plain file", sourceLocation: sourceLocation)
        #expect((try? String(contentsOf: bob.file("plan.txt"), encoding: .utf8)) == Self.plan, "\(how): with its content", sourceLocation: sourceLocation)
        #expect(lstatus(bob.file("photos/holiday.raw").path) == nil, "\(how): the file that was not local is not there", sourceLocation: sourceLocation)
        let items = Set(walk(bob.folder).keys)
        #expect(items == ["plan.txt", "photos"], "\(how): only what was local (and the directory) is left: \(items.sorted())", sourceLocation: sourceLocation)
        #expect(!items.contains { $0.hasSuffix(IgnoreRules.placeholderSuffix) }, "\(how): no placeholder is left", sourceLocation: sourceLocation)

        let folder = try await folderStatus(of: bob)
        #expect(folder?.state == .detached, "\(how): \(String(describing: folder))", sourceLocation: sourceLocation)
        #expect(folder?.message?.contains("no longer shared") == true, "\(how): \(String(describing: folder?.message))", sourceLocation: sourceLocation)
        let problems = folder?.problems ?? []
        #expect(problems.contains(ItemProblem(path: "photos/holiday.raw", message: Self.notLocalMessage)), "\(how): \(problems)", sourceLocation: sourceLocation)
        #expect(!problems.contains { $0.path == "plan.txt" }, "\(how): the local file is no problem: \(problems)", sourceLocation: sourceLocation)

        let overview = try await bob.docsStatus([])
        #expect(overview.status == 0, "\(how): \(overview.errors)", sourceLocation: sourceLocation)
        #expect(overview.output.contains("no longer shared"), "\(how): docs-status shows the state:\n\(overview.output)", sourceLocation: sourceLocation)
        #expect(overview.output.contains("\(bob.folder.path)/photos/holiday.raw: \(Self.notLocalMessage)"),
                "\(how): docs-status lists the file that was not local:\n\(overview.output)", sourceLocation: sourceLocation)
    }

    @Test func aParticipantLeavingAShareOnDemandKeepsWhatIsLocalAsPlainFilesAndListsTheRest() async throws {
        try await withShareOnDemand("docsync-share-ondemand-leave") { _, alice, bob in
            // plan.txt is downloaded; holiday.raw stays remote (its placeholder in the cache).
            let downloaded = try await bob.docsStatus(["download", bob.file("plan.txt").path])
            #expect(downloaded.status == 0, "\(downloaded)")
            #expect(docsyncStatus(bob.file("plan.txt").path) == "local")
            #expect(docsyncStatus(bob.file("photos/holiday.raw").path) == "remote")
            #expect(try await bob.waitSettled())
            let content = bob.stateDirectory.appendingPathComponent("shares/alice/Docs/content")
            #expect(lstatus(content.appendingPathComponent("photos/.holiday.raw" + IgnoreRules.placeholderSuffix).path) != nil,
                    "the cache holds a placeholder for the remote file: \(walk(content).keys.sorted())")

            let left = try await bob.docsStatus(["leave", bob.folder.path])
            #expect(left.status == 0 && left.output.contains("alice/Docs: left"), "\(left)")
            let unmounted = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) { !bob.isMounted }
            #expect(unmounted, "the folder is unmounted once the share ended:\n\(bob.logTextWithoutRequests().suffix(3000))")
            let listed = try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(200)) {
                try await folderStatus(of: bob)?.problems.contains { $0.path == "photos/holiday.raw" } == true
            }
            let afterwards = try await folderStatus(of: bob)
            #expect(listed, "the status lists what was not local: \(String(describing: afterwards))")
            try await expectDetached(bob, how: "after leaving")
            #expect(!walk(content).keys.contains { $0.hasSuffix(IgnoreRules.placeholderSuffix) }, "no placeholder is left in the cache either")
            #expect(try await bob.docsStatus(["wait", "--timeout", "10"]).status == 0, "a detached folder has nothing pending")

            // Nothing of alice's was deleted.
            #expect(try await alice.waitSettled())
            #expect((try? String(contentsOf: alice.file("plan.txt"), encoding: .utf8)) == Self.plan)
            #expect(FileManager.default.contents(atPath: alice.file("photos/holiday.raw").path).map(digest) == digest(Self.photo))

            // Started again: still detached, not mounted, the list still shown.
            #expect(await bob.stop() == 0)
            #expect(!bob.isMounted && bob.folderMountTypes.isEmpty, "stopped: nothing mounted")
            try bob.start()
            let answering = try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
                try await folderStatus(of: bob)?.problems.contains { $0.path == "photos/holiday.raw" } == true
            }
            #expect(answering, "the restarted daemon lists what was not local:\n\(bob.logTextWithoutRequests().suffix(3000))")
            // A while after the start: never mounted again.
            let mountedAgain = await eventually(timeout: .seconds(4), pollEvery: .milliseconds(20)) { bob.isMounted }
            #expect(!mountedAgain, "the restarted daemon does not mount the detached folder")
            try await expectDetached(bob, how: "after a restart")
            #expect(try await bob.docsStatus(["wait", "--timeout", "10"]).status == 0)
            // A person's action is answered (refused), not left waiting.
            let refused = try await bob.docsStatus(["download", bob.file("photos/holiday.raw").path])
            #expect(refused.status != 0 && (refused.output + refused.errors).contains("no longer shared"), "\(refused)")
            #expect(lstatus(bob.file("photos/holiday.raw").path) == nil, "nothing was downloaded")
            #expect(!bob.logText().contains("uploading the folder again"))
        }
    }

    @Test func theOwnerRemovingAParticipantOnDemandUnmountsItsFolderByPush() async throws {
        try await withShareOnDemand("docsync-share-ondemand-removed") { _, alice, bob in
            // plan.txt read whole through the mount (made local); holiday.raw never read.
            #expect((try? String(contentsOf: bob.file("plan.txt"), encoding: .utf8)) == Self.plan)
            let local = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
                docsyncStatus(bob.file("plan.txt").path) == "local"
            }
            #expect(local, "plan.txt is local once read: \(docsyncStatus(bob.file("plan.txt").path))")
            #expect(docsyncStatus(bob.file("photos/holiday.raw").path) == "remote")
            #expect(try await bob.waitSettled())

            #expect(try await alice.docsStatus(["share", "Docs", "--remove", "bob"]).status == 0)
            let unmounted = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) { !bob.isMounted }
            #expect(unmounted, "the removal reaches bob's device and unmounts its folder:\n\(bob.logTextWithoutRequests().suffix(3000))")
            let listed = try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(200)) {
                try await folderStatus(of: bob)?.problems.contains { $0.path == "photos/holiday.raw" } == true
            }
            let afterwards = try await folderStatus(of: bob)
            #expect(listed, "the status lists what was not local: \(String(describing: afterwards))")
            try await expectDetached(bob, how: "after the removal")
            #expect(try await folderStatus(of: bob)?.message?.contains("alice removed this account") == true)
        }
    }
}
