import DocSyncCore
import DocSyncStorage
import Foundation

/// What the scale-out store puts inside a `ChangeToken`: the account, the zone, the zone's
/// incarnation (so a token outlives neither a deletion nor a re-creation) and a position in
/// the account's sequence.
///
/// A token of the embedded store (the same fields without the account) is taken as one of
/// the account it is presented to: `docsync-server migrate` keeps incarnations and
/// sequence values, so the devices of a migrated server go on from where they were.
struct ScaleOutChangeToken: Codable, Equatable {
    var account: Int64?
    var zone: String
    var incarnation: String
    var seq: Int64

    var token: ChangeToken {
        ChangeToken(opaqueValue: try! WireCoding.encoder.encode(self))
    }

    /// Decodes a token; `changeTokenExpired` when it is not one of this store's.
    init(_ token: ChangeToken) throws(SyncError) {
        guard let decoded = try? WireCoding.decoder.decode(ScaleOutChangeToken.self, from: token.opaqueValue) else {
            throw SyncError(.changeTokenExpired, "change token was not issued by this store; fetch from the beginning")
        }
        self = decoded
    }

    init(account: Int64?, zone: String, incarnation: String, seq: Int64) {
        self.account = account
        self.zone = zone
        self.incarnation = incarnation
        self.seq = seq
    }
}
