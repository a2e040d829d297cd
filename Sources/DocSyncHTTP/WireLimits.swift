import DocSyncCore
import DocSyncStorage

/// The size limits of each route, shared by the server (which enforces them, answering
/// `limitExceeded`) and the client (which cuts its requests to fit them).
public enum WireLimits {
    /// A modify request's JSON body: far above 400 ordinary records, well below 400 records
    /// of the 1 MB maximum (such a batch is refused and the engine splits it).
    public static let modifyBody = 64 << 20
    /// Record names in one lookup request.
    public static let recordNamesPerLookup = 1000
    /// A lookup request's JSON body.
    public static let lookupBody = 1 << 20
    /// A recover request's JSON body (400 recoveries of the longest names and paths fit).
    public static let recoverBody = 4 << 20
    /// Record names in one purge request.
    public static let recordNamesPerPurge = 1000
    /// A purge request's JSON body.
    public static let purgeBody = 1 << 20
    /// Digests in one `missing` or `download` request.
    public static let digestsPerRequest = 10_000
    /// A `missing` or `download` request's JSON body (10,000 digests take about 680 kB).
    public static let digestListBody = 2 << 20
    /// One chunk's body: the chunk limit.
    public static let chunkBody = StorageLimits.maximumChunkSize
    /// An upload batch's framed body: room for one largest chunk, or many small ones.
    public static let uploadBatchBody = 2 * StorageLimits.maximumChunkSize
    /// Chunks in one upload batch.
    public static let chunksPerBatch = 10_000
    /// About how many bytes of chunks one download answer carries before the server stops
    /// and leaves the rest for the next request (at least one chunk is always sent).
    public static let downloadBatchBudget = 8 << 20
    /// Accounts named in one change of a share.
    public static let participantsPerChange = 100
    /// A zone move's JSON body (one zone name of at most 255 bytes, escaped).
    public static let moveBody = 4 << 10
    /// A share change's JSON body (100 of the longest account names fit).
    public static let shareBody = 64 << 10
    /// The framed body the client cuts upload batches to (one larger chunk travels alone).
    public static let clientBatchTarget = 8 << 20
}
