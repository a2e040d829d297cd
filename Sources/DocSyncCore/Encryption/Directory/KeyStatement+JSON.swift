import Foundation

extension KeyStatement {
    /// The statement as the key directory holds it: `{"suite", "kind", "subject",
    /// "payload" (base64), "signature" (base64)}`.
    public var json: JSONValue {
        .object([
            "suite": .number(Double(suite.rawValue)), "kind": .number(Double(kind.rawValue)), "subject": .string(subject),
            "payload": .string(payload.base64EncodedString()), "signature": .string(signature.base64EncodedString()),
        ])
    }

    /// A statement read back from `json`; `malformed` for anything else, `unsupportedSuite`
    /// for a suite this version does not know.
    public init(json: JSONValue) throws(EncryptionError) {
        guard case let .object(fields) = json, case let .number(suite)? = fields["suite"], case let .number(kind)? = fields["kind"],
              case let .string(subject)? = fields["subject"], let payload = fields["payload"]?.base64Bytes,
              let signature = fields["signature"]?.base64Bytes, let kindByte = UInt8(exactly: kind), let suiteByte = UInt8(exactly: suite),
              let statementKind = Kind(rawValue: kindByte)
        else { throw EncryptionError(.malformed, "a key statement in the key directory is not one") }
        self.init(suite: try CipherSuite(byte: suiteByte), kind: statementKind, subject: subject, payload: payload, signature: signature)
    }
}

extension JSONValue {
    /// The bytes of a base64 string value, `nil` for anything else.
    var base64Bytes: Data? {
        guard case let .string(text) = self else { return nil }
        return Data(base64Encoded: text)
    }
}
