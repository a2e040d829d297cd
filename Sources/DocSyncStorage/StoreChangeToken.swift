import DocSyncCore
import Foundation

/// What the stores put inside a `ChangeToken`: the zone, the zone's incarnation (so a token
/// outlives neither a deletion nor a re-creation) and a sequence position; for the
/// scale-out store also the account whose sequence it is.
///
/// The embedded store writes no account, and the scale-out store takes a token without one
/// as the token of the account it is presented to: `docsync-server migrate` keeps
/// incarnations and sequence values, so the devices of a migrated server go on from where
/// they were.
public struct StoreChangeToken: Codable, Equatable, Sendable {
    public var account: Int64?
    public var zone: String
    public var incarnation: String
    public var seq: Int64

    public var token: ChangeToken {
        ChangeToken(opaqueValue: try! WireCoding.encoder.encode(self))
    }

    /// Decodes a token; `changeTokenExpired` when it is not one of a store's.
    public init(_ token: ChangeToken) throws(SyncError) {
        guard let decoded = try? WireCoding.decoder.decode(StoreChangeToken.self, from: token.opaqueValue) else {
            throw SyncError(.changeTokenExpired, "change token was not issued by this backend; fetch from the beginning")
        }
        self = decoded
    }

    public init(account: Int64? = nil, zone: String, incarnation: String, seq: Int64) {
        self.account = account
        self.zone = zone
        self.incarnation = incarnation
        self.seq = seq
    }
}
