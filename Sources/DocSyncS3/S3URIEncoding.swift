/// URI encoding as Signature Version 4 defines it (and as S3 expects paths and query
/// parameters): the unreserved characters `A-Z a-z 0-9 - . _ ~` stay as they are, every other
/// byte of the UTF-8 form becomes `%XY` with upper-case hex digits. `/` is kept only where
/// asked (in an object key's path, where it separates segments), never in query parameters.
///
/// The same string is sent on the wire and signed, so what the store decodes is exactly the
/// key that was given, whatever characters it holds (spaces, `+`, `%`, `?`, `#`, non-ASCII).
enum S3URIEncoding {
    /// `text` encoded; `/` is kept when `keepSlash` (object keys in a path), encoded otherwise.
    static func encode(_ text: String, keepSlash: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The path of an object in path-style addressing: `/BUCKET/KEY`, each encoded (the
    /// key's `/` kept), or `/BUCKET` for requests on the bucket itself.
    static func path(bucket: String, key: String?) -> String {
        guard let key else { return "/" + encode(bucket) }
        return "/" + encode(bucket) + "/" + encode(key, keepSlash: true)
    }

    /// The canonical query string: each name and value encoded, pairs sorted by name then
    /// value, `name=value` joined with `&` (a parameter without value is `name=`). The same
    /// string is used in the URL, so what is signed is what is sent.
    static func canonicalQuery(_ parameters: [(name: String, value: String)]) -> String {
        parameters
            .map { (encode($0.name), encode($0.value)) }
            .sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// Decodes `%XY` sequences, and `+` as a space when `plusIsSpace` (S3 answers a listing
    /// asked with `encoding-type=url` this way). Returns nil when a `%` is not followed by two
    /// hex digits or the bytes are not UTF-8.
    static func decode(_ text: String, plusIsSpace: Bool = false) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = bytes.next().flatMap(hexValue), let low = bytes.next().flatMap(hexValue) else {
                    return nil
                }
                out.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                out.append(UInt8(ascii: " "))
            default:
                out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
