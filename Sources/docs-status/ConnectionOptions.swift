import ArgumentParser
import DocSyncControl
import DocSyncCore
import Foundation

/// The options every `docs-status` call has: where the daemon is and how to print.
struct ConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's control socket (default: $DOCSYNC_SOCKET, else $XDG_RUNTIME_DIR/docsync/control.sock).", valueName: "path"))
    var socket: String?

    @Flag(help: "Print JSON (sorted keys) instead of a table.")
    var json = false

    var socketPath: String { ControlSocketLocation.resolve(explicit: socket) }

    /// Sends `request`. A daemon that is not running exits 3; other connection failures exit 1;
    /// both with one line on stderr.
    func call(_ request: ControlRequest) async throws -> ControlResponse {
        do {
            return try await ControlClient(socketPath: socketPath).send(request)
        } catch .daemonNotRunning(let path) {
            Output.error(ControlClientError.daemonNotRunning(socketPath: path).description)
            throw DocsStatusExit.daemonNotRunning
        } catch {
            Output.error(error.description)
            throw DocsStatusExit.failure
        }
    }

    /// Reports a `.failure` response (stderr, and a JSON `error` object on stdout with
    /// `--json`) and exits 1.
    func fail(code: String, message: String) throws -> Never {
        if json { Output.json(ErrorReport(error: .init(code: code, message: message))) }
        Output.error(message)
        throw DocsStatusExit.failure
    }

    /// A response this call does not expect: the daemon is a different version.
    func unexpected(_ response: ControlResponse) throws -> Never {
        Output.error("docsyncd answered with an unexpected response (\(response)); docs-status and docsyncd may be different versions")
        throw DocsStatusExit.failure
    }
}

/// `{"error": {"code": …, "message": …}}`, what `--json` prints when a call fails.
struct ErrorReport: Encodable {
    struct Detail: Encodable {
        let code: String
        let message: String
    }

    let error: Detail
}

/// Where `docs-status` writes.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// `docs-status: MESSAGE` on stderr.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("docs-status: \(message)\n".utf8))
    }

    /// `value` as indented JSON with sorted keys and ISO 8601 dates, on stdout.
    static func json(_ value: some Encodable) {
        let encoder = ControlFraming.makeEncoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        do {
            line(String(decoding: try encoder.encode(value), as: UTF8.self))
        } catch {
            self.error("cannot encode the answer as JSON: \(error)")
        }
    }
}
