/// `text` in double quotes with Swift's escapes, for messages: `"mirorr"`, `"a\nb"`.
///
/// Not `text.debugDescription`: TOMLKit redeclares `String.debugDescription` to return the
/// string unquoted, and that member is visible throughout this module.
func quoted(_ text: String) -> String {
    String(reflecting: text)
}
