/// Something that has a value for each metadata attribute: what a predicate is evaluated
/// against (an index row, a snapshot in a test).
public protocol MetadataValues {
    /// The value of `attribute` for this item: `.null` when it has none. A value of another
    /// type than `attribute.type` makes every comparison with it false.
    func value(of attribute: MetadataAttribute) -> MetadataValue
}

/// A plain table of attribute values; attributes it does not hold are `.null`.
public struct MetadataSnapshot: MetadataValues, Hashable, Sendable {
    public var values: [MetadataAttribute: MetadataValue]

    public init(_ values: [MetadataAttribute: MetadataValue] = [:]) { self.values = values }

    /// Takes every attribute's value from `item`.
    public init(of item: some MetadataValues) {
        var values: [MetadataAttribute: MetadataValue] = [:]
        for attribute in MetadataAttribute.allCases { values[attribute] = item.value(of: attribute) }
        self.values = values
    }

    public subscript(attribute: MetadataAttribute) -> MetadataValue {
        get { values[attribute] ?? .null }
        set { values[attribute] = newValue }
    }

    public func value(of attribute: MetadataAttribute) -> MetadataValue { self[attribute] }
}
