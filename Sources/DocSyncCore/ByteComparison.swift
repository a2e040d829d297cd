import Foundation

/// Text compared as its UTF-8 bytes, as Linux compares file names and SQLite compares text
/// (SPEC §4a "Paths are bytes").
///
/// Swift's `String` and `Substring` compare, hash and order by canonical equivalence: NFC
/// `caf\u{E9}` and NFD `cafe\u{301}` are `==`, hash alike, and `hasPrefix` sees one in the
/// other. For paths, names and link targets that is wrong — they are two files on disk —
/// so every comparison of them goes through these.
extension StringProtocol {
    /// True when both hold the same UTF-8 bytes.
    @inlinable
    public func bytesEqual<Other: StringProtocol>(_ other: Other) -> Bool {
        let mine = utf8, theirs = other.utf8
        guard mine.count == theirs.count else { return false }
        let fast = mine.withContiguousStorageIfAvailable { left in
            theirs.withContiguousStorageIfAvailable { right in
                left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
        if let fast, let equal = fast { return equal }
        return mine.elementsEqual(theirs)
    }

    /// True when these UTF-8 bytes start with `prefix`'s.
    @inlinable
    public func hasBytePrefix<Prefix: StringProtocol>(_ prefix: Prefix) -> Bool {
        let mine = utf8, start = prefix.utf8
        guard mine.count >= start.count else { return false }
        // Native strings compare with one memcmp (the watcher asks this of every event's
        // directory); a bridged or foreign one byte by byte.
        let fast = mine.withContiguousStorageIfAvailable { left in
            start.withContiguousStorageIfAvailable { right in
                right.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, right.count) == 0
            }
        }
        if let fast, let equal = fast { return equal }
        return mine.prefix(start.count).elementsEqual(start)
    }

    /// True when these UTF-8 bytes end with `suffix`'s.
    @inlinable
    public func hasByteSuffix<Suffix: StringProtocol>(_ suffix: Suffix) -> Bool {
        let mine = utf8, end = suffix.utf8
        guard mine.count >= end.count else { return false }
        let fast = mine.withContiguousStorageIfAvailable { left in
            end.withContiguousStorageIfAvailable { right in
                right.count == 0 || memcmp(left.baseAddress! + (left.count - right.count), right.baseAddress!, right.count) == 0
            }
        }
        if let fast, let equal = fast { return equal }
        return mine.suffix(end.count).elementsEqual(end)
    }

    /// True when these UTF-8 bytes come before `other`'s in byte order (SQLite's BINARY
    /// collation, `memcmp`).
    @inlinable
    public func bytesPrecede<Other: StringProtocol>(_ other: Other) -> Bool {
        let mine = utf8, theirs = other.utf8
        let fast = mine.withContiguousStorageIfAvailable { left in
            theirs.withContiguousStorageIfAvailable { right in
                let shared = Swift.min(left.count, right.count)
                let order = shared == 0 ? 0 : memcmp(left.baseAddress!, right.baseAddress!, shared)
                return order != 0 ? order < 0 : left.count < right.count
            }
        }
        if let fast, let precedes = fast { return precedes }
        return mine.lexicographicallyPrecedes(theirs)
    }

    /// Whether this `/`-separated path is `ancestor` or lies beneath it, comparing bytes
    /// (`""` is the root, above everything).
    @inlinable
    public func isSamePathOrBeneath<Ancestor: StringProtocol>(_ ancestor: Ancestor) -> Bool {
        let mine = utf8, above = ancestor.utf8
        if above.isEmpty { return true }
        guard hasBytePrefix(ancestor) else { return false }
        return mine.count == above.count || mine.dropFirst(above.count).first == UInt8(ascii: "/")
    }

    /// Feeds exactly these UTF-8 bytes (and their count) to `hasher`: equal bytes, equal hash.
    @inlinable
    public func hashBytes(into hasher: inout Hasher) {
        let bytes = utf8
        hasher.combine(bytes.count)
        let hashed: Void? = bytes.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { for byte in bytes { hasher.combine(byte) } }
    }
}

extension Optional where Wrapped: StringProtocol {
    /// True when both are absent, or both hold the same UTF-8 bytes.
    @inlinable
    public func bytesEqual(_ other: Wrapped?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case (let mine?, let theirs?): mine.bytesEqual(theirs)
        default: false
        }
    }
}
