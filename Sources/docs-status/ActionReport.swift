import ArgumentParser
import DocSyncCore

/// How `download`, `evict` and `restore` report what they did to each item.
enum ActionReport {
    /// Prints every outcome (a table, or a JSON array with `--json`), then exits 1 when
    /// the action was refused or failed for any item.
    static func finish(_ outcomes: [ActionOutcome], options: ConnectionOptions) throws {
        if options.json {
            Output.json(outcomes)
        } else {
            Output.lines(render(outcomes))
        }
        let failed = outcomes.filter { !$0.done }.count
        if failed > 0 {
            Output.error("\(failed) of \(Format.count(outcomes.count, "item")) not done")
            throw DocsStatusExit.failure
        }
    }

    /// RESULT, PATH, NOTE, one row per item: "✓ done", "✗ failed".
    static func render(_ outcomes: [ActionOutcome]) -> [String] {
        if outcomes.isEmpty { return ["nothing to do: no item matched"] }
        let rows = outcomes.map { outcome -> [Cell] in
            [
                outcome.done ? Cell("✓ done", color: .green) : Cell("✗ failed", color: .red),
                Cell(Format.join(outcome.folder, outcome.path)),
                Cell(outcome.message ?? ""),
            ]
        }
        return Table.render(header: ["RESULT", "PATH", "NOTE"], rows: rows)
    }
}

/// What `download` and `evict` take: paths, a predicate, or both.
struct ActionTargets: ParsableArguments {
    @Argument(help: ArgumentHelp("Files or directories inside synced folders.", valueName: "path"))
    var paths: [String] = []

    @Option(name: .customLong("where"), help: ArgumentHelp("Every item matching this predicate (see docs-status query).", valueName: "predicate"))
    var predicate: String?

    func validate() throws {
        guard !paths.isEmpty || predicate != nil else {
            throw ValidationError("give at least one PATH or --where PREDICATE")
        }
    }
}
