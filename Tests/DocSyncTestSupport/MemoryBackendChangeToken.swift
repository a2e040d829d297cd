import DocSyncCore
import Foundation

/// What `MemoryBackend` puts inside a `ChangeToken`: the zone, the zone's incarnation (so a
/// token outlives neither a deletion nor a re-creation, nor the store being forgotten) and
/// a position in the store's sequence.
///
/// Encoded as four lines of UTF-8 — a format tag, the incarnation, the position in decimal
/// and the zone name (which never holds a newline) — so equal tokens are equal bytes on
/// every run, and a token of another backend (the local one's JSON) is told apart.
struct MemoryBackendChangeToken: Equatable {
    var zone: String
    var incarnation: String
    var seq: Int64

    private static let format = "docsync-memory-token/1"

    var token: ChangeToken {
        ChangeToken(opaqueValue: Data([Self.format, incarnation, String(seq), zone].joined(separator: "\n").utf8))
    }

    init(zone: String, incarnation: String, seq: Int64) {
        self.zone = zone
        self.incarnation = incarnation
        self.seq = seq
    }

    /// Decodes a token; `changeTokenExpired` when it is not one of ours.
    init(_ token: ChangeToken) throws(SyncError) {
        let lines = String(decoding: token.opaqueValue, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 4, lines[0] == Self.format, !lines[1].isEmpty, let seq = Int64(lines[2]), ZoneID.problem(with: String(lines[3])) == nil else {
            throw SyncError(.changeTokenExpired, "change token was not issued by this backend; fetch from the beginning")
        }
        self.init(zone: String(lines[3]), incarnation: String(lines[1]), seq: seq)
    }
}
