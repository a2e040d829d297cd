import DocSyncStorage
import Foundation

/// The `docsync-server` of the demo: a data directory of its own, one user whose token both
/// devices use, plain HTTP on a free loopback port. Stopped with SIGTERM by `stop()`.
final class DemoServer {
    let data: URL
    let tokenFile: URL
    private(set) var url: URL?
    private var process: Process?
    private var exit: ProcessExit?

    init(base: URL) throws {
        data = base.appendingPathComponent("server-data")
        tokenFile = base.appendingPathComponent("demo.token")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    }

    /// `docsync-server user add demo`, then `docsync-server serve` until it prints where it listens.
    func start() throws -> URL {
        _ = try addUser("demo")

        let serve = Process()
        serve.executableURL = DaemonDemo.sibling("docsync-server")
        serve.arguments = ["serve", "--data", data.path, "--listen", "127.0.0.1:0"]
        let output = Pipe()
        serve.standardOutput = output
        serve.standardError = FileHandle.nullDevice
        let exit = ProcessExit(of: serve)
        try serve.run()
        process = serve
        self.exit = exit
        var seen = ""
        while true {
            let piece = output.fileHandleForReading.availableData
            guard !piece.isEmpty else { throw DemoError("docsync-server stopped before it listened") }
            seen += String(decoding: piece, as: UTF8.self)
            if let line = seen.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
               let url = URL(string: String(line.dropFirst("listening on ".count))) {
                self.url = url
                return url
            }
        }
    }

    /// `docsync-server user add NAME` (before the server starts, or while it runs): an
    /// account, its token in a file of its own, `NAME.token` beside the data directory.
    func addUser(_ name: String) throws -> URL {
        let add = Process()
        add.executableURL = DaemonDemo.sibling("docsync-server")
        add.arguments = ["user", "add", name, "--data", data.path]
        let tokenPipe = Pipe()
        add.standardOutput = tokenPipe
        let added = ProcessExit(of: add)
        try add.run()
        let token = tokenPipe.fileHandleForReading.readDataToEndOfFile()
        added.wait()
        guard add.terminationStatus == 0 else { throw DemoError("docsync-server user add \(name) failed with \(add.terminationStatus)") }
        let file = data.deletingLastPathComponent().appendingPathComponent("\(name).token")
        guard FileManager.default.createFile(atPath: file.path, contents: token, attributes: [.posixPermissions: 0o600]) else {
            throw DemoError("cannot write the token to \(file.path)")
        }
        return file
    }

    /// SIGTERM; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        guard let process, process.isRunning else { return process?.terminationStatus ?? 0 }
        process.terminate()
        exit?.wait()
        return process.terminationStatus
    }
}

struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
