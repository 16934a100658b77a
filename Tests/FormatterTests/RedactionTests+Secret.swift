extension RedactionTests {
    /// One secret in the text it appears in.
    struct Secret {
        let kind: String
        /// The text as it appears in agent output.
        let text: String
        /// What must not appear after redaction.
        let secret: String
    }
}
