import Foundation

/// The JSON coders every component uses for records and tokens, so that what one writes
/// another reads byte for byte (sorted keys: equal values encode equally).
public enum WireCoding {
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static var decoder: JSONDecoder { JSONDecoder() }
}
