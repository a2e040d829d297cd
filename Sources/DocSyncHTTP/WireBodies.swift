import DocSyncCore
import DocSyncStorage

/// The JSON bodies of the API that are not already a storage type. Each is encoded with
/// `WireCoding`; the route that carries it is named on it (see `WireRoute`).
public enum WireBody {
    /// `GET /v1/zones` answer.
    public struct Zones: Codable, Sendable, Hashable {
        public var zones: [ZoneID]
        public init(zones: [ZoneID]) { self.zones = zones }
    }

    /// `POST /v1/zones/{zone}/move` request: the zone to move it into.
    public struct ZoneMove: Codable, Sendable, Hashable {
        public var target: ZoneID
        public init(target: ZoneID) { self.target = target }
    }

    /// `POST /v1/zones/{zone}/records/lookup` request: record names of that zone.
    public struct RecordNames: Codable, Sendable, Hashable {
        public var recordNames: [String]
        public init(recordNames: [String]) { self.recordNames = recordNames }
    }

    /// `POST /v1/zones/{zone}/records/lookup` answer: the records that exist, in any order.
    public struct Records: Codable, Sendable, Hashable {
        public var records: [Record]
        public init(records: [Record]) { self.records = records }
    }

    /// `POST /v1/chunks/missing` and `POST /v1/chunks/download` requests.
    public struct Digests: Codable, Sendable, Hashable {
        public var digests: [SHA256Digest]
        public init(digests: [SHA256Digest]) { self.digests = digests }
    }

    /// `POST /v1/chunks/missing` answer: the digests of the request that are not stored.
    public struct Missing: Codable, Sendable, Hashable {
        public var missing: [SHA256Digest]
        public init(missing: [SHA256Digest]) { self.missing = missing }
    }
}
