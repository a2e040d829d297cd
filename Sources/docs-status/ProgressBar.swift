#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// The progress line of a long call (`download`, `recover`, `deletions --restore`, `wait`),
/// drawn on stderr while the call is outstanding — only when stderr is a terminal and the
/// call prints no JSON. Otherwise nothing is drawn, nothing is polled, and the output is the
/// plain lines it always was.
enum ProgressBar {
    /// One line, at most `width` characters: `LABEL [########------------]  35%`.
    ///
    /// `done` is clamped to `0...total`; the percentage is rounded down and the cells are
    /// filled rounding down, so the bar is full and says 100% only when `done == total`.
    /// `total <= 0` (nothing measurable) draws `LABEL` alone. A label too long for the line
    /// is cut with "…" (or left out when not even two characters of it fit); a line too
    /// narrow for a bar of 10 cells shows `35% LABEL` instead.
    static func render(done: Int64, total: Int64, width: Int, label: String) -> String {
        let width = max(1, width)
        guard total > 0 else { return fit(label, width) }
        let done = min(max(done, 0), total)
        let percent = Int(scaled(done, of: total, to: 100))
        let shownPercent = String(repeating: " ", count: max(0, 3 - String(percent).count)) + "\(percent)%"
        // "LABEL [" + cells + "] " + " 35%": 8 characters beside the label and the cells.
        let fixed = 8, minimumCells = 10, maximumCells = 30
        guard width >= fixed + minimumCells else { return fit("\(percent)% \(label)", width) }
        let labelRoom = width - fixed - minimumCells
        let shownLabel = labelRoom >= 2 ? fit(label, labelRoom) : ""
        let room = shownLabel.isEmpty ? width - fixed + 1 : width - fixed - shownLabel.count
        let cells = min(maximumCells, max(minimumCells, room))
        let filled = Int(scaled(done, of: total, to: Int64(cells)))
        let bar = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: cells - filled) + "]"
        return (shownLabel.isEmpty ? "" : shownLabel + " ") + bar + " " + shownPercent
    }

    /// `done / total * scale`, rounded down, without overflow (`0 <= done <= total`, `total > 0`).
    static func scaled(_ done: Int64, of total: Int64, to scale: Int64) -> Int64 {
        total.dividingFullWidth(done.multipliedFullWidth(by: scale)).quotient
    }

    /// `text` cut to `width` characters, ending with "…" when cut.
    static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        guard text.count > width else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    /// "3 s", "2 min 05 s": how long a call has been running, for the lines without a bar.
    static func elapsed(_ duration: Duration) -> String {
        let seconds = max(0, Int(duration.components.seconds))
        return seconds < 60 ? "\(seconds) s" : "\(seconds / 60) min \(String(format: "%02d", seconds % 60)) s"
    }

    /// Whether this run draws progress: stderr is a terminal (`isatty(STDERR_FILENO)`) and
    /// `TERM` is not `dumb`. A call printing JSON draws none either (`ProgressPoller`).
    static let onTerminal: Bool = isatty(STDERR_FILENO) != 0 && ProcessInfo.processInfo.environment["TERM"] != "dumb"

    /// The terminal's width in columns (stderr's, else `$COLUMNS`, else 80).
    static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }
}

/// The one progress line of this run, on stderr. Every other write of `docs-status`
/// (`Output`) goes through `interrupt`, which takes the line away first, so a message never
/// lands on the end of a bar; the next `draw` puts it back. Does nothing when stderr is not
/// a terminal: no escape code is ever written anywhere else.
final class ProgressLine: Sendable {
    static let shared = ProgressLine(enabled: ProgressBar.onTerminal)

    let enabled: Bool
    /// Whether a line is on the screen now (writes happen under this lock too).
    private let drawn = Mutex(false)

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Replaces the line with `text` (carriage return, the text, erase to the end of the line).
    func draw(_ text: String) {
        guard enabled else { return }
        drawn.withLock { drawn in
            Self.write("\r" + text + "\u{1B}[K")
            drawn = true
        }
    }

    /// Takes the line away, if one is drawn.
    func clear() {
        guard enabled else { return }
        drawn.withLock { drawn in
            if drawn { Self.write("\r\u{1B}[K") }
            drawn = false
        }
    }

    /// Runs `write` (a write to stdout or stderr) with the line taken away first.
    func interrupt(_ write: () -> Void) {
        guard enabled else { return write() }
        drawn.withLock { drawn in
            if drawn { Self.write("\r\u{1B}[K") }
            drawn = false
            write()
        }
    }

    private static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// What a long call's progress is at one moment: `done` of `total` (bytes or items; `total`
/// 0 when nothing is measurable) and the words before the bar.
struct ProgressSample: Sendable, Equatable {
    var done: Int64
    var total: Int64
    var label: String
}

/// Runs a long call and, while it is outstanding on a terminal, draws its progress: after
/// 300 ms (a quick call draws nothing), `sample` is asked about every 200 ms — less often
/// when the daemon takes long to answer it, so polling never costs it more than a third of
/// its time — on connections of its own, and each answer is drawn. The line is taken away
/// when the call returns, before its result is printed.
enum ProgressPoller {
    static func run<Value: Sendable>(
        json: Bool,
        sample: @escaping @Sendable (_ elapsed: Duration) async -> ProgressSample?,
        _ call: () async throws -> Value
    ) async throws -> Value {
        let line = ProgressLine.shared
        guard line.enabled, !json else { return try await call() }
        let started = ContinuousClock.now
        let drawer = Task {
            try? await Task.sleep(for: .milliseconds(300))
            while !Task.isCancelled {
                let asked = ContinuousClock.now
                let answer = await sample(asked - started)
                let took = ContinuousClock.now - asked
                if Task.isCancelled { break }
                if let answer {
                    line.draw(ProgressBar.render(done: answer.done, total: answer.total,
                                                 width: ProgressBar.terminalWidth() - 1, label: answer.label))
                }
                try? await Task.sleep(for: max(.milliseconds(200), took * 2))
            }
        }
        defer { line.clear() }
        do {
            let value = try await call()
            drawer.cancel()
            await drawer.value
            return value
        } catch {
            drawer.cancel()
            await drawer.value
            throw error
        }
    }
}
