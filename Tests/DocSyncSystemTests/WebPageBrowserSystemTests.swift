import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// The status page (SPEC §15) in a real browser: two real daemons (`--web-listen
/// 127.0.0.1:0`, a free port each), a sign-in address from `docs-status web`, and
/// Tests/WebPage/drive.py driving headless Chromium through Debian's chromedriver and selenium
/// (offline) — a held mass deletion restored by a click, a conflict resolved and a deleted file
/// recovered by clicks, the folder's row following changes without a reload, pause and resume.
/// After each run the daemons are asked what the click did (files back, the conflict copy
/// gone, `docs-status conflicts` empty). drive.py also fails on a console error, a
/// Content-Security-Policy report or a request outside the page's origin.
///
/// Screenshots before and after every click: `.build/test-artifacts/web-page/SCENARIO-NN-*.png`.
///
/// Needs /usr/bin/chromium, /usr/bin/chromedriver and selenium for python3 (`make test`
/// installs them: TEST_PACKAGES and Tests/WebPage/install.sh). Without them the suite is
/// skipped, saying why; with CI=true it runs and fails instead.
@Suite("the status page in a real browser", .serialized,
       .enabled(if: BrowserTools.missing == nil || BrowserTools.required, Comment(rawValue: BrowserTools.skipReason)))
struct WebPageBrowserSystemTests {
    static let webListen = ["--web-listen", "127.0.0.1:0"]

    /// Two devices syncing `files` files, settled, their pages listening.
    static func devices(files: [String: String], extraArguments: [String] = []) async throws -> DevicePair {
        let pair = try DevicePair(extraArguments: webListen + extraArguments)
        for (name, text) in files { try text.write(to: pair.a.file(name), atomically: false, encoding: .utf8) }
        try pair.startBoth()
        await pair.converge("the first sync", also: { syncedNames(pair.b.folder).count == files.count })
        #expect(try await pair.a.waitSettled())
        #expect(try await pair.b.waitSettled())
        return pair
    }

    @Test func aMassDeletionHeldByTheBrakeIsRestoredByAClick() async throws {
        try BrowserTools.require()
        let names = (0..<12).map { "f\($0).txt" }
        let pair = try await Self.devices(files: Dictionary(uniqueKeysWithValues: names.map { ($0, "file \($0)\n") }),
                                          extraArguments: ["--delete-brake-min", "5"])
        try await closing({ await pair.stopBoth() }) {
            let a = pair.a
            try await shell("rm -f ./*.txt", in: a.folder)
            #expect(await eventually(timeout: .seconds(30)) { (try? await a.status())?.folders.first?.state == .deletionsHeld },
                    "the brake holds 12 deletions: \(a.logTextWithoutRequests().suffix(3000))")

            try await BrowserTools.drive(a, "held-restore", ["--folder", "Docs"])

            #expect(await eventually(timeout: .seconds(30)) { names.allSatisfy { contents(a.file($0)) == "file \($0)\n" } },
                    "every file is back: \(syncedNames(a.folder))")
            #expect(await eventually(timeout: .seconds(30)) { (try? await a.status())?.folders.first.map { $0.state != .deletionsHeld && $0.held == nil } ?? false })
            // The page once showed "↓ -12 (-146 B)" pending here: the restore counted pending
            // downloads down from a count only the fetch loop set.
            let restored = try await a.status()?.folders.first
            #expect((restored?.pendingDownloads ?? 0) >= 0 && (restored?.pendingDownloadBytes ?? 0) >= 0, "\(String(describing: restored))")
            let held = try await a.docsStatusJSON([HeldFolder].self, ["deletions"])
            #expect(held.allSatisfy { $0.held == nil && $0.total == 0 }, "nothing is held any more: \(held)")
            #expect(try await a.waitSettled())
            await pair.converge("after the restore")
            #expect(syncedNames(pair.b.folder).count == names.count, "the other device kept every file")
        }
    }

    @Test func aConflictIsResolvedAndADeletedFileRecoveredByClicks() async throws {
        try BrowserTools.require()
        let pair = try await Self.devices(files: ["plan.txt": "draft\n", "old.txt": "old notes\n"])
        try await closing({ await pair.stopBoth() }) {
            // The same file edited on both devices while they were stopped: a conflict copy.
            await pair.stopBoth()
            try overwrite(pair.a.file("plan.txt"), "alpha's plan\n")
            try overwrite(pair.b.file("plan.txt"), "beta's plan\n")
            try pair.startBoth()
            await pair.converge("concurrent edits", also: { syncedNames(pair.a.folder).filter { $0.hasPrefix("plan") }.count == 2 })
            let copy = try #require(syncedNames(pair.a.folder).first { ConflictName.originalName(of: $0) == "plan.txt" })
            // Resolved on the device that made the copy (its name says which), keeping its own version.
            let maker = try #require(ConflictName.device(of: copy))
            let (device, other) = maker == "alpha" ? (pair.a, pair.b) : (pair.b, pair.a)
            // And a file deleted on the other device, for Recently Deleted.
            try FileManager.default.removeItem(at: other.file("old.txt"))
            await pair.converge("a deletion", also: { !FileManager.default.fileExists(atPath: device.file("old.txt").path) })
            #expect(try await device.waitSettled())
            #expect(await eventually(timeout: .seconds(20)) {
                (try? await device.docsStatusJSON([ItemStatus].self, ["conflicts"]))?.contains { $0.path == "plan.txt" } ?? false
            }, "docs-status conflicts lists plan.txt on \(device.name)")
            #expect(await eventually(timeout: .seconds(20)) {
                (try? await device.docsStatusJSON([DeletedEntry].self, ["deleted"]))?.contains { $0.path == "old.txt" } ?? false
            }, "old.txt is in Recently Deleted")

            try await BrowserTools.drive(device, "conflict-resolve,recover",
                                         ["--conflict", "Docs/plan.txt", "--keep", "local", "--deleted", "Docs/old.txt"])

            await pair.converge("resolved and recovered", also: {
                syncedNames(pair.a.folder).sorted() == ["old.txt", "plan.txt"] && contents(pair.a.file("plan.txt")) == "\(maker)'s plan\n"
                    && contents(pair.a.file("old.txt")) == "old notes\n"
            })
            #expect(!syncedNames(device.folder).contains(copy), "the conflict copy is gone")
            #expect(try await device.waitSettled())
            #expect(try await other.waitSettled())
            #expect(try await device.docsStatusJSON([ItemStatus].self, ["conflicts"]).isEmpty)
            #expect(try await other.docsStatusJSON([ItemStatus].self, ["conflicts"]).isEmpty)
            let log = try await device.docsStatus(["conflicts", "--log"])
            #expect(log.output.contains("resolved-local"), "the click is in the conflict log: \(log.output)")
        }
    }

    @Test func theFolderRowFollowsChangesWithoutAReloadAndPausesByAClick() async throws {
        try BrowserTools.require()
        let pair = try await Self.devices(files: ["a.txt": "a\n", "b.txt": "b\n"])
        try await closing({ await pair.stopBoth() }) {
            let a = pair.a, b = pair.b
            let before = try #require(try await a.status()?.folders.first?.items)
            let ready = pair.base.url.appendingPathComponent("page-ready")
            // The handshake: drive.py creates `ready` once the page shows the row; only then do
            // files change, three here and two on the other device, and the row must come to
            // show them all, settled, without a reload.
            async let driven: Void = try BrowserTools.drive(a, "live,pause-resume",
                                                        ["--folder", "Docs", "--min-items", "\(before + 5)", "--state", "idle",
                                                         "--ready-file", ready.path])
            let pageReady = await eventually(timeout: .seconds(60), pollEvery: .milliseconds(20)) {
                FileManager.default.fileExists(atPath: ready.path)
            }
            #expect(pageReady, "drive.py showed the page")
            if pageReady {
                for number in 1...3 { try "local \(number)\n".write(to: a.file("new \(number).txt"), atomically: false, encoding: .utf8) }
                for number in 1...2 { try "remote \(number)\n".write(to: b.file("remote \(number).txt"), atomically: false, encoding: .utf8) }
            }
            try await driven

            let folder = try #require(try await a.status()?.folders.first)
            #expect(folder.state != .paused && folder.items >= before + 5, "resumed by the click, every file counted: \(folder)")
            await pair.converge("after the page's pause and resume", also: { syncedNames(b.folder).count == 7 })
        }
    }
}

/// Chromium, chromedriver and selenium, and running Tests/WebPage/drive.py with them.
enum BrowserTools {
    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"
    /// The package's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = root.appendingPathComponent("Tests/WebPage/drive.py")
    /// Where the screenshots go: `.build/test-artifacts/web-page/` in the package.
    static let artifacts = root.appendingPathComponent(".build/test-artifacts/web-page")
    /// Deadline of one drive.py run, browser start and every scenario of it included (each
    /// of its waits has its own, shorter one).
    static let runDeadline = 150

    /// What is missing for the browser test, or nil when everything is there.
    static let missing: String? = {
        var missing: [String] = []
        if !FileManager.default.isExecutableFile(atPath: chromium) { missing.append("\(chromium) (Debian package chromium)") }
        if !FileManager.default.isExecutableFile(atPath: chromedriver) { missing.append("\(chromedriver) (Debian package chromium-driver)") }
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import selenium"]
        python.standardOutput = FileHandle.nullDevice
        python.standardError = FileHandle.nullDevice
        if (try? python.run()) == nil {
            missing.append("python3")
        } else {
            python.waitUntilExit()
            if python.terminationStatus != 0 { missing.append("selenium for python3 (Tests/WebPage/install.sh installs it)") }
        }
        return missing.isEmpty ? nil : "missing: " + missing.joined(separator: ", ")
    }()

    /// On CI (`CI=true`) the test must run: missing tools fail it rather than skip it.
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"

    static var skipReason: String {
        "the status page's browser test needs Chromium, chromedriver and selenium (make test installs them); \(missing ?? "")"
    }

    /// A drive.py run that failed, or a tool missing on CI: what it printed, and more.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Fails the test when a tool is missing (it runs then only with CI=true).
    static func require() throws {
        if let missing { throw Failure(description: "CI=true and the status page's browser test cannot run: \(missing)") }
    }

    /// A one-time sign-in address of `daemon`'s page, once it listens.
    static func signIn(_ daemon: DaemonProcess, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let listening = await eventually(timeout: .seconds(30)) { (try? await daemon.status())?.web?.address != nil }
        let web = try await daemon.status()?.web
        try #require(listening, "\(daemon.name)'s page listens: \(String(describing: web))", sourceLocation: sourceLocation)
        struct Answer: Decodable { var url: String }
        let answer = try await daemon.docsStatusJSON(Answer.self, ["web"], sourceLocation: sourceLocation)
        #expect(answer.url.hasPrefix(web?.address ?? "-") && answer.url.contains("/signin?token="), "\(answer.url)", sourceLocation: sourceLocation)
        return answer.url
    }

    /// Runs drive.py on `daemon`'s page (a new sign-in address) through `scenarios`; throws
    /// its output and the daemon's log when it fails.
    static func drive(_ daemon: DaemonProcess, _ scenarios: String, _ arguments: [String],
                      sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let url = try await signIn(daemon, sourceLocation: sourceLocation)
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let started = ContinuousClock.now
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/timeout"),
                                          ["--kill-after=5", "\(runDeadline)", "python3", script.path, url, scenarios, artifacts.path]
                                            + arguments,
                                          environment: ["SE_OFFLINE": "true", "PYTHONUNBUFFERED": "1"])
        let report = "drive.py \(scenarios) on \(daemon.name), exit \(result.status) after \(ContinuousClock.now - started):\n"
            + "\(result.output)\(result.errors)"
        if result.status != 0 {
            throw Failure(description: "\(report)\n--- \(daemon.name)'s log:\n\(daemon.logTextWithoutRequests().suffix(4000))")
        }
        print(report)
    }
}
