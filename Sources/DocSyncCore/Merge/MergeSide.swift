/// One side of a three-way merge: this device's item or the server's record.
public enum MergeSide: String, Sendable, Hashable, Codable {
    case local, server
}
