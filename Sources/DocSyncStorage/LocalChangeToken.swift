import DocSyncCore
import Foundation

/// What the embedded backend puts inside a `ChangeToken`: the zone, the zone's incarnation
/// (so a token outlives neither a deletion nor a re-creation) and a sequence position.
struct LocalChangeToken: Codable, Equatable {
    var zone: String
    var incarnation: String
    var seq: Int64

    var token: ChangeToken {
        ChangeToken(opaqueValue: try! WireCoding.encoder.encode(self))
    }

    /// Decodes a token; `changeTokenExpired` when it is not one of ours.
    init(_ token: ChangeToken) throws(SyncError) {
        guard let decoded = try? WireCoding.decoder.decode(LocalChangeToken.self, from: token.opaqueValue) else {
            throw SyncError(.changeTokenExpired, "change token was not issued by this backend; fetch from the beginning")
        }
        self = decoded
    }

    init(zone: String, incarnation: String, seq: Int64) {
        self.zone = zone
        self.incarnation = incarnation
        self.seq = seq
    }
}
