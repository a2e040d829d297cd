import Foundation

/// The end-to-end encryption part of `make demo` (SPEC §13): a third account, bea, whose
/// laptop already syncs a private file, turns encryption on from it (the recovery key shown
/// once; the folder moves into its encrypted zone and the server purges the plaintext); her
/// desktop waits for approval until the laptop approves it with the code both show; the file
/// goes across; and the server's whole data directory holds neither its name nor its text.
extension DaemonDemo {
    /// Runs the step; returns bea's two devices, running (the caller stops them).
    func encryptedAccount(server: DemoServer, url: URL) async throws -> [Device] {
        let fm = FileManager.default
        step.title("17. End-to-end encryption: a third account, bea, whose server learns nothing of her files")
        let token = try server.addUser("bea")
        let laptop = try Device("bea-laptop", base: base, backend: url, tokenFile: token)
        try laptop.start()
        _ = await until { ((try? laptop.docsStatus(["wait", "--timeout", "1"], quiet: true)) ?? "").hasPrefix("settled") }
        let name = "Budget 2027 (private).txt", text = "rent 1200, savings 400\n"
        try text.write(to: laptop.file(name), atomically: false, encoding: .utf8)
        let synced = await until { ((try? laptop.docsStatus(["wait", "--timeout", "1"], quiet: true)) ?? "").hasPrefix("settled") }
        step.say("bea's laptop syncs \(name) through the server, in the clear for now (settled after \(synced))")
        step.say("$ docs-status encryption enable   (on bea's laptop: the folder moves into its encrypted zone)")
        for line in try laptop.docsStatus(["encryption", "enable"]).split(separator: "\n", omittingEmptySubsequences: false) { step.say("  " + String(line)) }
        let moved = await until { ((try? laptop.docsStatus(["wait", "--timeout", "1"], quiet: true)) ?? "").hasPrefix("settled") }
        step.say("moved after \(moved): uploaded sealed from the laptop, and the server purged every plaintext record and chunk of the folder")
        let desktop = try Device("bea-desktop", base: base, backend: url, tokenFile: token)
        try desktop.start()
        _ = await until { ((try? desktop.docsStatus(["encryption"], quiet: true)) ?? "").contains("awaiting approval") }
        step.say("bea's desktop starts: it waits for approval and syncs nothing yet")
        step.say("$ docs-status encryption   (on bea's desktop)")
        for line in try desktop.docsStatus(["encryption"]).split(separator: "\n") { step.say("  " + String(line)) }
        step.say("$ docs-status devices   (on bea's laptop: the same code for the desktop)")
        for line in try laptop.docsStatus(["devices"]).split(separator: "\n") { step.say("  " + String(line)) }
        let code = try desktop.docsStatus(["encryption"]).split(separator: "\n")
            .first { $0.hasPrefix("approval code: ") }.map { String($0.dropFirst("approval code: ".count)) } ?? ""
        step.say("$ docs-status devices approve bea-desktop --fingerprint '\(code)'   (on bea's laptop, the codes compared)")
        for line in try laptop.docsStatus(["devices", "approve", "bea-desktop", "--fingerprint", code]).split(separator: "\n") { step.say("  " + String(line)) }
        let arrived = await until { fm.contents(atPath: desktop.file(name).path) == Data(text.utf8) }
        step.say("approved: \(name) is on bea's desktop after \(arrived)")

        var leaks: [String] = []
        for case let path as String in fm.enumerator(atPath: server.data.path) ?? FileManager.DirectoryEnumerator() {
            guard let bytes = fm.contents(atPath: server.data.appendingPathComponent(path).path) else { continue }
            for needle in ["Budget 2027", "rent 1200"] where bytes.range(of: Data(needle.utf8)) != nil { leaks.append("\(needle) in \(path)") }
        }
        step.say("the server's data directory (its databases, packs and logs), searched for the file's name and its text: "
                 + (leaks.isEmpty ? "found in no file" : "FOUND: \(leaks.joined(separator: "; "))"))
        return [laptop, desktop]
    }
}
