import ArgumentParser
import DocSyncControl
import DocSyncCore
import DocSyncPlatform
import Foundation

/// `docs-status conflicts [--log [--since T]]`: items with a conflict copy beside them, and
/// the copies; or the log of every conflict met and how it ended.
struct ConflictsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "Show the items with an unresolved conflict copy beside them, and the copies; --log: every conflict and its outcome.",
        discussion: """
            Settle a conflict with docs-status resolve (or keep the right content and delete \
            the copy yourself). --json prints an array of item objects. --log shows every \
            conflict this device met — merged, kept both, settled by the folder's policy, \
            resolved by a person — newest first, for as long as the version store keeps \
            versions (--json: an array of conflict objects); --since T keeps the later ones.

            \(DocsStatusExit.help)
            """
    )

    @Flag(help: "Show the conflict log: every conflict met and how it ended, newest first.")
    var log = false

    @Option(help: ArgumentHelp("With --log: conflicts at or after this time: 2026-11-20, 2026-11-20T09:30:00Z, or ago: 30m, 2h, 3d, 1w.", valueName: "time"))
    var since: String?

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        if since != nil, !log { throw ValidationError("--since goes with --log") }
        if let since {
            do { _ = try PointInTime.parse(since, now: .now) } catch { throw ValidationError("--since: \(error)") }
        }
    }

    func run() async throws {
        if log {
            let start = since.flatMap { try? PointInTime.parse($0, now: .now) }
            let entries = try await options.answer(.conflictLog(since: start), \.conflictLogEntries)
            if options.json {
                Output.json(entries.map(ConflictLogReport.init))
            } else {
                Output.lines(ConflictLogReport.render(entries, empty: since.map { "no conflicts logged since \($0)" } ?? "no conflicts logged"))
            }
            return
        }
        let items = try await options.answer(.conflicts, \.itemList)
        if options.json {
            Output.json(items)
        } else {
            Output.lines(ItemReport.render(items, empty: "no conflicts"))
        }
    }
}

/// One conflict log entry as `--json` prints it (the README's **conflict** object): the
/// entry's fields, its time as an ISO 8601 date.
struct ConflictLogReport: Encodable {
    let time: Date
    let folder: String
    let path: String
    let copyPath: String?
    let localDevice: String
    let remoteDevice: String?
    let outcome: String
    let detail: String?

    init(_ entry: ConflictLogEntry) {
        time = entry.time.date
        folder = entry.folder
        path = entry.path
        copyPath = entry.copyPath
        localDevice = entry.localDevice
        remoteDevice = entry.remoteDevice
        outcome = entry.outcome.rawValue
        detail = entry.detail
    }

    /// TIME, OUTCOME, WITH (the other device), PATH, COPY (the copy's name), DETAIL; one row per entry.
    static func render(_ entries: [ConflictLogEntry], empty: String) -> [String] {
        if entries.isEmpty { return [empty] }
        let rows = entries.map { entry -> [Cell] in
            [
                Cell(Format.dateTime(entry.time.date)), outcome(entry.outcome), Cell(entry.remoteDevice ?? "?"),
                Cell(Format.join(entry.folder, entry.path)),
                Cell(entry.copyPath.map { RelativePath($0).name } ?? ""), Cell(entry.detail ?? ""),
            ]
        }
        return Table.render(header: ["TIME", "OUTCOME", "WITH", "PATH", "COPY", "DETAIL"], rows: rows)
    }

    /// The outcome's word, coloured by who settled it: green merged, yellow still two files, blue a person or a policy.
    private static func outcome(_ outcome: ConflictOutcome) -> Cell {
        switch outcome {
        case .merged: Cell(outcome.rawValue, color: .green)
        case .keptBoth: Cell(outcome.rawValue, color: .yellow)
        case .localWon, .remoteWon, .resolvedLocal, .resolvedRemote, .resolvedBoth: Cell(outcome.rawValue, color: .blue)
        }
    }
}

extension ControlResponse {
    var conflictLogEntries: [ConflictLogEntry]? { if case .conflictLog(let entries) = self { entries } else { nil } }
}
