/// The rule for the name of a device kept with a change (a deletion's `device`, a token's
/// device on docsync-server): at most 255 bytes of UTF-8, no control characters.
public enum DeviceName {
    /// Why `name` cannot name a device, or `nil`.
    public static func problem(with name: String) -> String? {
        if name.utf8.count > 255 { return "is longer than 255 bytes" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) { return "has control characters" }
        return nil
    }
}
