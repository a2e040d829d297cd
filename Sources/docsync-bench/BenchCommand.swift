import ArgumentParser
import DocSyncCore
import DocSyncStorage
import Foundation

/// `make bench`: the chunker's throughput and what a 1-byte edit of a 50 MB file costs.
/// Prints a table and writes the figures as JSON.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docsync-bench",
        abstract: "Measure chunk+hash throughput and the cost of small edits to a large file.")

    @Option(help: "Size of the test file in bytes.")
    var size = 50_000_000

    @Option(help: "Repetitions of each throughput measurement (the median is reported).")
    var rounds = 5

    @Option(help: "Random edit positions measured per chunker configuration.")
    var edits = 40

    @Option(help: "Where to write the figures as JSON.")
    var json = ".build/bench/chunker.json"

    mutating func run() async throws {
        print("docsync-bench: generating \(size) bytes of seeded random data…")
        let content = RandomBytes.generate(count: size, seed: 0x5eed)

        print("\n== Throughput, one core (median of \(rounds), min–max) ==")
        let throughput = Throughput.measure(content, rounds: rounds)
        for row in throughput.rows { print(row.line) }
        print(String(format: "chunk+hash reaches %.0f%% of the two-SHA-256-pass ceiling (%.0f MB/s)",
                     throughput.chunkAndHash / throughput.ceiling * 100, throughput.ceiling))

        print("\n== 1-byte insertion in the middle of the \(size / 1_000_000) MB file, through the local backend ==")
        let middle = try await EditCost.insertionInTheMiddle(content)
        print(middle.line)

        print("\n== Chunker configurations: \(edits) random small edits each (insert or delete 1–8 bytes) ==")
        print(EditCost.Survey.header)
        var surveys: [EditCost.Survey] = []
        for parameters in EditCost.candidates {
            let survey = EditCost.survey(content, parameters: parameters, edits: edits)
            surveys.append(survey)
            print(survey.line)
        }

        let report = BenchReport(size: size, throughput: throughput.rows, insertionInTheMiddle: middle, survey: surveys)
        let url = URL(fileURLWithPath: json)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: url)
        print("\nfigures written to \(json)")
    }
}

struct BenchReport: Encodable {
    let size: Int
    let throughput: [Throughput.Row]
    let insertionInTheMiddle: EditCost.Middle
    let survey: [EditCost.Survey]
}

enum RandomBytes {
    /// Seeded pseudo-random bytes (SplitMix64), the same on every run.
    static func generate(count: Int, seed: UInt64) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            var generator = SplitMix64(seed: seed)
            let words = raw.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = generator.next() }
            for index in (words.count * 8)..<count { raw[index] = UInt8(truncatingIfNeeded: index &* 131) }
        }
        return data
    }
}
