/// `Codable` for records, field by field as `Record.Field` lists them (the same keys and
/// values as the wire JSON): what `JSONEncoder` and `JSONDecoder` use where a record sits
/// inside a value that is not written by hand (a `SyncError`'s `serverRecord`, the control
/// socket's messages). An absent optional field has no key; `null` reads as absent.
extension Record {
    public init(from decoder: any Decoder) throws {
        var fields = DecodingFieldVisitor(container: try decoder.container(keyedBy: Field.self))
        var draft = Draft()
        for field in Field.inCompactOrder { try draft.visit(field, with: &fields) }
        self = try draft.record()
    }

    public func encode(to encoder: any Encoder) throws {
        var fields = EncodingFieldWriter(container: encoder.container(keyedBy: Field.self))
        for field in Field.inCompactOrder { try write(field, with: &fields) }
    }
}

struct DecodingFieldVisitor: RecordFieldVisitor {
    typealias Failure = any Error
    let container: KeyedDecodingContainer<Record.Field>

    mutating func visit<Value: RecordFieldValue>(_ field: Record.Field, _ value: inout Value?) throws(any Error) {
        value = field.isOptional ? try container.decodeIfPresent(Value.self, forKey: field) : try container.decode(Value.self, forKey: field)
    }
}

struct EncodingFieldWriter: RecordFieldWriter {
    typealias Failure = any Error
    var container: KeyedEncodingContainer<Record.Field>

    mutating func write<Value: RecordFieldValue>(_ field: Record.Field, _ value: Value?) throws(any Error) {
        try container.encodeIfPresent(value, forKey: field)
    }
}
