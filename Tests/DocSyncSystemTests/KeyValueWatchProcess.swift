import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation

/// `docs-status kv watch` as a real process, its lines collected in a file.
final class KeyValueWatchProcess: @unchecked Sendable {
    let output: URL
    private let process = Process()

    init(store: KeyValueStoreID, socket: String, base: URL, name: String, since: Int64? = nil) throws {
        output = base.appendingPathComponent("\(name)-watch.jsonl")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.executableURL = builtProduct("docs-status")
        process.arguments = ["kv", "watch", "--store", store.name, "--socket", socket] + (since.map { ["--since", "\($0)"] } ?? [])
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// The changes printed so far.
    func changes() -> [KeyValueChange] {
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? ControlFraming.makeDecoder().decode(KeyValueChange.self, from: Data($0.utf8)) }
    }

    /// The keys announced with `reason`.
    func keys(_ reason: KeyValueChangeReason) -> Set<String> {
        Set(changes().filter { $0.reason == reason }.flatMap(\.keys))
    }

    var isRunning: Bool { process.isRunning }

    /// SIGTERM; returns the exit status.
    func stop() async -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        _ = await eventually(timeout: .seconds(10)) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
