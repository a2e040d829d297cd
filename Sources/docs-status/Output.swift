import DocSyncControl
import Foundation

/// Where `docs-status` writes. Every write goes straight to the file descriptor (no
/// buffering), so a live query's lines reach a pipe as they happen. A progress line drawn on
/// a terminal (`ProgressLine`) is taken away before anything else is written.
enum Output {
    static func line(_ text: String) {
        ProgressLine.shared.interrupt { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
    }

    static func lines(_ texts: [String]) {
        if texts.isEmpty { return }
        line(texts.joined(separator: "\n"))
    }

    /// `docs-status: MESSAGE` on stderr.
    static func error(_ message: String) {
        ProgressLine.shared.interrupt { FileHandle.standardError.write(Data("docs-status: \(message)\n".utf8)) }
    }

    /// `value` as indented JSON with sorted keys and ISO 8601 dates, on stdout.
    static func json(_ value: some Encodable) {
        let encoder = ControlFraming.makeEncoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        write(value, with: encoder)
    }

    /// `value` as JSON on one line (sorted keys, ISO 8601 dates), for line-per-event output.
    static func jsonLine(_ value: some Encodable) {
        write(value, with: ControlFraming.makeEncoder())
    }

    private static func write(_ value: some Encodable, with encoder: JSONEncoder) {
        do {
            line(String(decoding: try encoder.encode(value), as: UTF8.self))
        } catch {
            self.error("cannot encode the answer as JSON: \(error)")
        }
    }
}
