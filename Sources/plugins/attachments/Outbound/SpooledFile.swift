/// A copy of a checked workspace file in the spool folder, ready for the messenger to upload.
struct SpooledFile: Sendable {
    let path: String
    let size: Int
    /// The first bytes, for the MIME type.
    let head: [UInt8]
}
