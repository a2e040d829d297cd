import DocSyncCore
import Foundation

/// The routes of the docsync-server API (version 1), as the client builds them and the
/// server matches them. `openapi.yaml` in the server target documents each one.
///
/// Zone names, record names and digests sit in path segments percent-encoded; the server
/// decodes and validates them (`invalidArguments` otherwise). Every route needs
/// `Authorization: Bearer TOKEN`.
public enum WireRoute {
    /// `GET`: every zone (`WireBody.Zones`).
    public static let zones = "/v1/zones"
    /// `PUT`: create the zone; `DELETE`: delete it.
    public static func zone(_ zone: ZoneID) -> String { "/v1/zones/\(segment(zone.name))" }
    /// `POST` `WireBody.ZoneMove`, answered with no content: the zone is moved into the
    /// target it names and left as a redirect (`StorageBackend.moveZone`, SPEC §13).
    public static func move(_ zone: ZoneID) -> String { WireRoute.zone(zone) + "/move" }
    /// `POST` a `RecordBatch`, answered with a `ModifyResult`.
    public static func modify(_ zone: ZoneID) -> String { WireRoute.zone(zone) + "/modify" }
    /// `GET ?since=TOKEN&limit=N`: a `ChangeSet`. `since` is the token's bytes in base64url.
    public static func changes(_ zone: ZoneID) -> String { WireRoute.zone(zone) + "/changes" }
    /// `POST` `WireBody.RecordNames`, answered with `WireBody.Records`.
    public static func lookup(_ zone: ZoneID) -> String { WireRoute.zone(zone) + "/records/lookup" }
    /// `GET ?since=NANOSECONDS`: the zone's Recently Deleted (`WireBody.DeletedRecords`),
    /// those deleted at or after `since` (nanoseconds since 1970) when it is given.
    public static func deleted(_ zone: ZoneID) -> String { WireRoute.zone(zone) + "/deleted" }
    /// `POST` `WireBody.Recoveries`, answered with `WireBody.RecoverAnswer`.
    public static func recover(_ zone: ZoneID) -> String { WireRoute.deleted(zone) + "/recover" }
    /// `POST` `WireBody.Purge`, answered with `WireBody.Purged`.
    public static func purge(_ zone: ZoneID) -> String { WireRoute.deleted(zone) + "/purge" }
    /// `POST` `WireBody.Digests`, answered with `WireBody.Missing`.
    public static let missingChunks = "/v1/chunks/missing"
    /// `PUT` the raw bytes of one plain chunk; `GET` them back (`application/octet-stream`),
    /// a sealed chunk's with its body digest in `bodyDigestHeader`.
    public static func chunk(_ digest: SHA256Digest) -> String { "/v1/chunks/\(digest.hex)" }
    /// The header of a `GET` of `chunk(_:)` answering with a sealed chunk (SPEC §13): the
    /// SHA-256 of its body in 64 hex digits, what the bytes are checked against (its id is a
    /// keyed MAC). Absent for a plain chunk, whose digest is the SHA-256 of its bytes.
    public static let bodyDigestHeader = "Docsync-Body-SHA256"
    /// `POST` a `ChunkFraming` body of several chunks to store, plain or sealed.
    public static let uploadBatch = "/v1/chunks/upload"
    /// `POST` `WireBody.Digests`, answered with a `ChunkFraming` body holding the first of
    /// them, in order: as many as fit about `WireLimits.downloadBatchBudget` bytes (at least
    /// one). Ask again for the rest.
    public static let downloadBatch = "/v1/chunks/download"
    /// `GET`: the user's `StorageUsage`.
    public static let usage = "/v1/usage"
    /// `GET`: a `text/event-stream` of `ChangeNotification`s (see `ServerSentEvent`).
    public static let notifications = "/v1/notifications"

    // Sharing (SPEC §11).

    /// `GET`: the share of the caller's zone (`WireBody.Share`); `POST` a
    /// `WireBody.ShareChange`, answered with the share after it. The owner's only.
    public static func share(_ zone: ZoneID) -> String { WireRoute.zone(zone) + "/share" }
    /// `GET`: every share offered to the caller, of every status (`WireBody.Shares`).
    public static let shares = "/v1/shares"

    /// A participant's answer to a share.
    public enum ShareAnswer: String, CaseIterable, Sendable {
        case accept, decline, leave
    }

    /// `POST`, no body: the caller's answer to `share`, answered with its `ShareEntry`.
    public static func answer(_ share: ShareName, _ answer: ShareAnswer) -> String {
        "/v1/shares/\(segment(share.owner))/\(segment(share.zone.name))/\(answer.rawValue)"
    }

    /// The route `path` (one of the zone, chunk and notification routes above) in the zones
    /// `owner` shares with the caller: `/v1/shared/OWNER/…`. The owner's zones and chunks,
    /// as far as the share allows; the caller's own for `owner` = the caller.
    public static func shared(by owner: String, _ path: String) -> String {
        precondition(path.hasPrefix("/v1/"), "\(path) is not a route of the API")
        return "/v1/shared/\(segment(owner))" + path.dropFirst(3)
    }

    /// The media type of chunk bodies and framed batches.
    public static let octetStream = "application/octet-stream"
    /// The media type of every JSON body.
    public static let json = "application/json"

    /// `name` percent-encoded for one path segment (everything but unreserved characters).
    public static func segment(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: unreserved) ?? name
    }

    /// A change token's bytes in base64url without padding, for the `since` query item.
    public static func encodeToken(_ token: ChangeToken) -> String {
        token.opaqueValue.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The token of a `since` query item; throws `invalidArguments` when it is not base64url.
    public static func decodeToken(_ text: String) throws(SyncError) -> ChangeToken {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        guard !text.contains("="), !text.contains("+"), !text.contains("/"), let data = Data(base64Encoded: base64) else {
            throw SyncError(.invalidArguments, "the change token \(text.prefix(80).debugDescription) is not base64url; send back the token a fetch returned")
        }
        return ChangeToken(opaqueValue: data)
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
