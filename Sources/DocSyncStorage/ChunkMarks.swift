/// The chunks a collection found referenced, by `SHA256Digest.indexKey`. Two digests that
/// share a key are both kept when either is marked: a mark errs only towards keeping.
///
/// Marks gathered in bulk (`insert` before `seal`) are kept as one sorted array, 8 bytes a
/// chunk, not a hash set of digests; those added after (`insert` once sealed, a few per
/// sweep transaction) go to a small set.
struct ChunkMarks {
    private var sorted: [Int64] = []
    private var late = Set<Int64>()
    private var isSealed = false

    init() {}

    mutating func insert(_ key: Int64) {
        if isSealed { late.insert(key) } else { sorted.append(key) }
    }

    /// Sorts the bulk marks; `contains` needs it.
    mutating func seal() {
        sorted.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(sorted.count)
        for key in sorted where unique.last != key { unique.append(key) }
        sorted = unique
        isSealed = true
    }

    func contains(_ key: Int64) -> Bool {
        precondition(isSealed, "marks are looked up once sealed")
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < key { low = middle + 1 } else { high = middle }
        }
        return (low < sorted.count && sorted[low] == key) || late.contains(key)
    }

    var count: Int { sorted.count + late.count }
}
