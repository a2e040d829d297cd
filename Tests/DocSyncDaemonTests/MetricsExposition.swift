import Foundation

/// A Prometheus text exposition taken apart for tests: its series (every sample line) with
/// their values, the type of each family, and the label values.
struct MetricsExposition {
    let text: String
    /// Each sample line's series (name and labels as written) and value.
    let samples: [String: Double]
    /// Each family's `# TYPE`.
    let types: [String: String]

    init(_ text: String) {
        self.text = text
        var samples: [String: Double] = [:], types: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.isEmpty {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 { types[String(parts[2])] = String(parts[3]) }
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let space = line.lastIndex(of: " ") else { continue }
            samples[String(line[..<space])] = Double(line[line.index(after: space)...]) ?? .nan
        }
        self.samples = samples
        self.types = types
    }

    var seriesCount: Int { samples.count }

    /// Every label of every series (name and value, unescaped).
    var labels: [(name: String, value: String)] {
        samples.keys.flatMap { series -> [(name: String, value: String)] in
            guard let open = series.firstIndex(of: "{") else { return [] }
            var labels: [(name: String, value: String)] = [], name = "", current = "", inValue = false, escaped = false
            for character in series[series.index(after: open)...] {
                if inValue {
                    if escaped { current.append(character == "n" ? "\n" : character); escaped = false }
                    else if character == "\\" { escaped = true }
                    else if character == "\"" { labels.append((name, current)); name = ""; current = ""; inValue = false }
                    else { current.append(character) }
                } else if character == "\"" {
                    inValue = true
                } else if character != "=" && character != "," && character != "}" {
                    name.append(character)
                }
            }
            return labels
        }
    }

    /// The value of the series `name{labels}` (labels as `key="value"` in the order exposed).
    func value(_ name: String, _ labels: String) -> Double? { samples["\(name){\(labels)}"] }

    /// The samples that only ever grow: counters, and histograms' buckets, sums and counts.
    var monotonic: [String: Double] {
        samples.filter { series, _ in
            let name = String(series.prefix { $0 != "{" })
            if types[name] == "counter" { return true }
            for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
                if types[String(name.dropLast(suffix.count))] == "histogram" { return true }
            }
            return false
        }
    }
}

/// Runs `promtool check metrics` (the real program) over `text`: its exit status and output.
func promtoolCheck(_ text: String) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
    process.arguments = ["check", "metrics"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
}
