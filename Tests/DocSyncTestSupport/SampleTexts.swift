/// Texts the merge tests edit on several devices, written once.
public enum SampleTexts {
    /// A Markdown notes file with three sections, each a heading and one line, the sections
    /// apart by blank lines: edits in two different sections merge.
    public static let notes = """
        # Notes

        ## Monday
        call the bank

        ## Tuesday
        buy bread

        ## Wednesday
        water the plants

        """
}
