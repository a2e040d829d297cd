#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes received on a connection, cut into lines (see `ControlFraming`).
///
/// Append what arrives; take complete lines with `nextLine()`. A line (newline excluded)
/// longer than `limit` is an error as soon as that is certain, so a peer cannot make the
/// buffer grow without bound.
public struct ControlLineBuffer: Sendable {
    public let limit: Int
    private var bytes: [UInt8] = []
    /// Where the search for the next newline resumes (everything before it has none).
    private var scanned = 0

    public init(limit: Int = ControlFraming.maximumLineLength) {
        self.limit = limit
    }

    /// True when no partial line is held.
    public var isEmpty: Bool { bytes.isEmpty }

    public mutating func append(_ received: some Sequence<UInt8>) {
        bytes.append(contentsOf: received)
    }

    /// The next complete line without its newline, or `nil` until one has arrived.
    /// Throws `.lineTooLong` when the next line is, or is sure to be, longer than `limit`.
    public mutating func nextLine() throws(ControlFramingError) -> [UInt8]? {
        guard let end = firstNewline(from: scanned) else {
            scanned = bytes.count
            if bytes.count > limit { throw .lineTooLong(limit: limit) }
            return nil
        }
        guard end <= limit else { throw .lineTooLong(limit: limit) }
        let line = Array(bytes[..<end])
        bytes.removeSubrange(...end)
        scanned = 0
        return line
    }

    private func firstNewline(from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            guard start < buffer.count, let base = buffer.baseAddress else { return nil }
            guard let found = memchr(base + start, Int32(ControlFraming.newline), buffer.count - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }
}
