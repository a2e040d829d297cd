import ArgumentParser
import DocSyncCore
import DocSyncPlatform
import Foundation

/// What `deleted` and `recover` take to pick Recently Deleted items: paths, a predicate, a time.
struct DeletedSelectionOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Deleted items (their last paths) or folders inside synced folders; a synced folder itself takes all of it.", valueName: "path"))
    var paths: [String] = []

    @Option(name: .customLong("where"), help: ArgumentHelp("Items matching this predicate (see docs-status query; deletedAt and deletedBy too).", valueName: "predicate"))
    var predicate: String?

    @Option(help: ArgumentHelp("Items deleted at or after this time: 2026-11-20, 2026-11-20T09:30:00Z, or ago: 30m, 2h, 3d, 1w.", valueName: "time"))
    var since: String?

    func validate() throws {
        if let since {
            do { _ = try PointInTime.parse(since, now: .now) } catch { throw ValidationError("--since: \(error)") }
        }
    }

    /// The selection as the daemon takes it.
    var selection: DeletedSelection {
        DeletedSelection(paths: PathArguments.absolute(paths), predicate: predicate,
                         since: since.flatMap { try? PointInTime.parse($0, now: .now) }.map(\.date))
    }
}
