/// A body that arrived completely and within its limits.
struct Download: Sendable, Equatable {
    let bytes: [UInt8]
    /// What the server said the body is; informative only, classification looks at the bytes.
    let contentType: String?
}
