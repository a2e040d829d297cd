import ArgumentParser
import DocSyncControl
import DocSyncCore
import Foundation

/// The options every `docs-status` call has: where the daemon is and how to print.
struct ConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's control socket (default: $DOCSYNC_SOCKET, else $XDG_RUNTIME_DIR/docsync/control.sock).", valueName: "path"))
    var socket: String?

    @Flag(help: "Print JSON (sorted keys, ISO 8601 dates) instead of a table.")
    var json = false

    var socketPath: String { ControlSocketLocation.resolve(explicit: socket) }

    var client: ControlClient { ControlClient(socketPath: socketPath) }

    /// Sends `request`, handing non-final responses to `onUpdate`. A daemon that is not
    /// running exits 3; other connection failures exit 1; both with one line on stderr.
    func call(
        _ request: ControlRequest,
        onUpdate: @escaping @Sendable (ControlResponse) async -> Void = { _ in }
    ) async throws -> ControlResponse {
        do {
            return try await client.send(request, timeout: nil, onUpdate: onUpdate)
        } catch {
            throw report(error)
        }
    }

    /// Prints `error` as one line on stderr and returns the exit code it means: 3 when the
    /// daemon is not running, 1 otherwise.
    func report(_ error: ControlClientError) -> ExitCode {
        Output.error(error.description)
        if case .daemonNotRunning = error { return DocsStatusExit.daemonNotRunning }
        return DocsStatusExit.failure
    }

    /// Sends `request` and returns what `expected` takes out of the answer; a `.failure`
    /// answer or any other response ends the command (`fail`, `unexpected`).
    func answer<Value>(_ request: ControlRequest, _ expected: (ControlResponse) -> Value?) async throws -> Value {
        let response = try await call(request)
        if let value = expected(response) { return value }
        if case .failure(let code, let message) = response { try fail(code: code, message: message) }
        try unexpected(response)
    }

    /// Reports a `.failure` response (stderr, and a JSON `error` object on stdout with
    /// `--json`) and exits: 2 for a bad predicate or folder, 4 for `notFound`, 5 for `held`, 1 otherwise.
    func fail(code: String, message: String, jsonLines: Bool = false) throws -> Never {
        if json {
            let report = ErrorReport(error: .init(code: code, message: message))
            if jsonLines { Output.jsonLine(report) } else { Output.json(report) }
        }
        Output.error(message)
        switch code {
        case ControlResponse.FailureCode.badPredicate, ControlResponse.FailureCode.badFolder: throw DocsStatusExit.usage
        case ControlResponse.FailureCode.notFound: throw DocsStatusExit.notFound
        case ControlResponse.FailureCode.held: throw DocsStatusExit.held
        default: throw DocsStatusExit.failure
        }
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

/// The payload of each response a call expects, `nil` for any other response.
extension ControlResponse {
    var daemonStatus: DaemonStatus? { if case .status(let status) = self { status } else { nil } }
    var settledStatus: DaemonStatus? { if case .settled(let status) = self { status } else { nil } }
    var itemList: [ItemStatus]? { if case .items(let items) = self { items } else { nil } }
    var problemList: [ProblemEntry]? { if case .problems(let problems) = self { problems } else { nil } }
    var outcomeList: [ActionOutcome]? { if case .actions(let outcomes) = self { outcomes } else { nil } }
    var versionList: [VersionEntry]? { if case .versions(let versions) = self { versions } else { nil } }
    var heldFolders: [HeldFolder]? { if case .held(let folders) = self { folders } else { nil } }
    var deletedEntries: [DeletedEntry]? { if case .deleted(let entries) = self { entries } else { nil } }
    var shareReport: (ShareName, [ShareEntry])? { if case .share(let share, let participants) = self { (share, participants) } else { nil } }
    var shareEntries: [ShareEntry]? { if case .shares(let entries) = self { entries } else { nil } }
    var encryptionStatus: EncryptionStatus? { if case .encryption(let status) = self { status } else { nil } }
}
