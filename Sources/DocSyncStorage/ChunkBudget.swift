import DocSyncCore

/// Which chunks of a download fit its byte budget, decided from where they lie before
/// anything is read.
public enum ChunkBudget {
    /// The longest prefix of `digests` (a repeated digest is repeated) whose chunks, each
    /// counted `cost(length)`, fit `budget`, and at least one; with their places. Throws
    /// `chunkNotFound` for the first digest of that prefix that `places` lacks.
    public static func prefix<Place>(
        of digests: [SHA256Digest], places: [SHA256Digest: Place], length: (Place) -> Int, budget: Int, cost: (Int) -> Int
    ) throws(SyncError) -> (order: [SHA256Digest], places: [SHA256Digest: Place]) {
        var chosen: [SHA256Digest: Place] = [:]
        var order: [SHA256Digest] = []
        var spent = 0
        for digest in digests {
            guard let place = places[digest] else { throw SyncError.chunkNotFound(digest) }
            if !order.isEmpty, spent + cost(length(place)) > budget { break }
            chosen[digest] = place
            order.append(digest)
            spent += cost(length(place))
        }
        return (order, chosen)
    }
}
