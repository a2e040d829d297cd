import DocSyncStorage
import Foundation

/// A `docsync-server` (the release build beside this benchmark) on a free loopback port with
/// a data directory of its own and one user, for the benchmarks that cross HTTP; or an
/// instance of a scale-out store, when `storeArguments` name one (the directory then holds
/// its log only).
final class BenchServer {
    let data: URL
    /// The flags that name the store: `--data DIR`, or `--records … --chunks …`.
    let storeArguments: [String]
    /// What the processes' environment adds (the S3 keys).
    let environment: [String: String]
    /// The file holding the bench user's token, for `docsyncd --token-file`.
    let tokenFile: URL
    private(set) var port: UInt16 = 0
    private let process = Process()
    private let exit: ProcessExit
    private let executable: URL
    private let wrapper: [String]

    /// `binaries`: the directory holding the `docsync-server` to run (by default the one beside
    /// this benchmark); `wrapper`: what runs it (`valgrind …`), if anything.
    init(base: URL, name: String = "server", storeArguments: [String]? = nil, environment: [String: String] = [:],
         binaries: URL = BenchDaemon.ownBinaries, wrapper: [String] = []) throws {
        data = base.appendingPathComponent("\(name)-data")
        tokenFile = base.appendingPathComponent("token")
        self.storeArguments = storeArguments ?? ["--data", data.path]
        self.environment = environment
        executable = binaries.appendingPathComponent("docsync-server")
        self.wrapper = wrapper
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        exit = ProcessExit(of: process)
    }

    /// Adds the user (unless `addUser` is false: another instance of the store did), starts
    /// the server and waits for the line naming its port.
    func start(addUser: Bool = true) throws {
        if addUser {
            let token = try Self.output(of: executable, ["user", "add", "bench"] + storeArguments, environment: environment)
            try Data((token.trimmingCharacters(in: .whitespacesAndNewlines) + "\n").utf8).write(to: tokenFile)
            chmod(tokenFile.path, 0o600)
        }
        process.executableURL = wrapper.first.map { URL(fileURLWithPath: $0) } ?? executable
        // Stopped at once when the bench is done: no balancer waits for a drain.
        process.arguments = (wrapper.isEmpty ? [] : wrapper.dropFirst() + [executable.path])
            + ["serve"] + storeArguments + ["--listen", "127.0.0.1:0", "--drain-delay", "0"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        let log = data.deletingLastPathComponent().appendingPathComponent(data.lastPathComponent + ".log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        var seen = Data()
        let handle = output.fileHandleForReading
        while port == 0 {
            let piece = handle.availableData
            guard !piece.isEmpty else { throw BenchError("docsync-server exited before listening; see \(log.path)") }
            seen.append(piece)
            let text = String(decoding: seen, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
               let last = line.split(separator: ":").last, let number = UInt16(last.trimmingCharacters(in: .whitespaces)) {
                port = number
            }
        }
    }

    /// The server's process id (once started).
    var pid: Int32 { process.processIdentifier }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        exit.wait()
    }

    deinit { stop() }

    private static func output(of executable: URL, _ arguments: [String], environment: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        let exit = ProcessExit(of: process)
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        exit.wait()
        guard process.terminationStatus == 0 else {
            throw BenchError("docsync-server \(arguments.joined(separator: " ")) failed with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
