import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// Seeded multi-device runs (issue 24): three engines on in-memory folders against one
/// in-memory store behind fault injection, people's operations and the world's faults
/// interleaved with engine turns, then healing and the invariants. A failure prints its
/// seed; `DOCSYNC_SEED=N make test` replays it exactly.
@Suite struct SimulationTests {
    /// Runs `seed`; returns the problems found (empty: every invariant held) and the run.
    static func outcome(seed: UInt64, operations: Int) async -> (problems: [String], simulation: Simulation?) {
        let simulation: Simulation
        do { simulation = try Simulation(seed: seed, operations: operations) } catch {
            return (["could not set up: \(error)"], nil)
        }
        do { try await simulation.run() } catch {
            return (["\(error)"], simulation)
        }
        return (await simulation.invariantProblems(), simulation)
    }

    /// What a person needs to replay a failure: the seed, the problems, the end of the log.
    static func report(seed: UInt64, _ problems: [String], _ simulation: Simulation?) -> String {
        let log = simulation?.log ?? []
        return """
            simulation seed \(seed) failed (\(problems.count) problem\(problems.count == 1 ? "" : "s")); replay: DOCSYNC_SEED=\(seed) make test
            \(problems.prefix(20).map { "  - " + $0 }.joined(separator: "\n"))
            last \(min(80, log.count)) of \(log.count) log lines:
            \(log.suffix(80).map { "    " + $0 }.joined(separator: "\n"))
            """
    }

    static func check(seed: UInt64, operations: Int = SimulationSettings.operations) async {
        await SimulationGate.shared.run { await checkNow(seed: seed, operations: operations) }
    }

    private static func checkNow(seed: UInt64, operations: Int) async {
        let (problems, simulation) = await outcome(seed: seed, operations: operations)
        if let destination = SimulationSettings.environment["DOCSYNC_SIM_PRINT"], let simulation {
            let text = "seed \(seed): \(simulation.log.count) log lines, \(simulation.turns) turns\n" + simulation.log.joined(separator: "\n")
            if destination.hasPrefix("/") {
                // A directory: the whole log goes to a file per seed there, the end state
                // (store and indexes) beside it.
                try? Data(text.utf8).write(to: URL(fileURLWithPath: destination).appendingPathComponent("seed-\(seed).log"))
                try? Data(await simulation.endState().utf8).write(to: URL(fileURLWithPath: destination).appendingPathComponent("seed-\(seed).state"))
            } else {
                print(text)
            }
        }
        if !problems.isEmpty { Issue.record(Comment(rawValue: report(seed: seed, problems, simulation))) }
    }

    /// Every seed of the run not listed in `KnownIssues`: each must pass.
    @Test(arguments: SimulationSettings.seeds)
    func seededRun(seed: UInt64) async {
        await Self.check(seed: seed)
    }

    /// Seeds that once failed, kept as regression cases named by what they found.
    @Test(arguments: SimulationSettings.regressionSeeds)
    func regression(seed: UInt64) async {
        await Self.check(seed: seed)
    }

    /// Seeds that fail on a known bug of the decision code, named in `KnownIssues`.
    @Test(arguments: SimulationSettings.knownIssueSeeds)
    func knownIssue(seed: UInt64) async {
        await withKnownIssue(Comment(rawValue: KnownIssues.bugs[seed] ?? "unknown"), isIntermittent: true) {
            await Self.check(seed: seed)
        }
    }

    /// The same seed gives the same event log, line for line (operations, faults, every
    /// engine turn and the store's sequence after it).
    @Test func aSeedReplaysExactly() async throws {
        let seed = SimulationSettings.replaySeed ?? 7
        let first = try #require(await Self.outcome(seed: seed, operations: 120).simulation)
        let second = try #require(await Self.outcome(seed: seed, operations: 120).simulation)
        #expect(first.log.count > 120)
        // Line for line as bytes: a log names paths, and names may differ only in normalization.
        let firstDifference = zip(first.log, second.log).enumerated().first { !$0.element.0.bytesEqual($0.element.1) }?.offset
        #expect(first.log.count == second.log.count && firstDifference == nil, "seed \(seed): the logs differ first at line \(firstDifference.map(String.init) ?? "end"): \(firstDifference.map { "\(first.log[$0]) / \(second.log[$0])" } ?? "")")
        let other = try #require(await Self.outcome(seed: seed + 1, operations: 120).simulation)
        #expect(!other.log.elementsEqual(first.log) { $0.bytesEqual($1) }, "another seed, another run")
    }
}
