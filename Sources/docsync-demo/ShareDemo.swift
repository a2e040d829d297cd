import Foundation

/// The sharing part of `make demo` (SPEC §11): the laptop's account shares its Documents
/// read-write with a second account, whose own device attaches the share into an empty
/// folder; files go both ways, and each side sees the share in docs-status (and who last
/// saved each file: `lastEditorName`).
extension DaemonDemo {
    /// Runs the step; returns the second account's device, running (the caller stops it).
    func shareWithAnotherAccount(from laptop: Device, server: DemoServer, url: URL) async throws -> Device {
        let fm = FileManager.default
        step.title("15. Sharing: the demo account shares Documents read-write with a second account, ana")
        let anaToken = try server.addUser("ana")
        step.say("docsync-server user add ana → a token for ana's own laptop")
        step.say("$ docs-status share Documents --with ana   (on the laptop)")
        for line in try laptop.docsStatus(["share", "Documents", "--with", "ana"]).split(separator: "\n") { step.say("  " + String(line)) }
        let ana = try Device("ana", base: base, backend: url, tokenFile: anaToken, extra: ["--share", "demo/Documents"])
        try ana.start()
        let arrived = await until { fm.contents(atPath: ana.file("Archive/plan.md").path) != nil }
        step.say("ana's docsyncd --folder \(ana.folder.path) --share demo/Documents: accepted, and the shared files are there after \(arrived)")
        step.say("$ docs-status shares   (on ana's laptop)")
        for line in try ana.docsStatus(["shares"]).split(separator: "\n") { step.say("  " + String(line)) }
        try "Ana's comments\n".write(to: ana.file("Archive/ana.txt"), atomically: false, encoding: .utf8)
        let back = await until { fm.contents(atPath: laptop.file("Archive/ana.txt").path) == Data("Ana's comments\n".utf8) }
        step.say("ana writes Archive/ana.txt; it is on the demo account's laptop after \(back)")
        _ = try ana.docsStatus(["wait", "--timeout", "30"])
        for (arguments, device) in [(["share", "Documents"], laptop), (["query", "isShared == true AND ownerName == 'demo' AND name LIKE 'a*'"], ana),
                                    (["query", "lastEditorName == 'ana'"], laptop)] {
            step.say("$ docs-status " + arguments.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ") + "   (on \(device.name))")
            for line in try device.docsStatus(arguments).split(separator: "\n") { step.say("  " + String(line)) }
        }
        return ana
    }
}
