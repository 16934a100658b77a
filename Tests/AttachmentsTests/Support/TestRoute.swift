/// How the test server answers one path.
enum TestRoute: Sendable {
    case body([UInt8], contentType: String)
    case status(Int)
    case redirect(to: String)
    /// Headers and a few bytes, then nothing until the client gives up.
    case stall
    /// Announces `declared` bytes, sends `sent`, then closes.
    case shortBody(declared: Int, sent: Int)
    /// Chunked body that never ends, with a small, false Content-Length beside it.
    case endlessChunked(claimedLength: Int)
    /// A close-delimited body that never ends and has no length at all.
    case endless
    /// A chunked body whose connection closes in the middle of a chunk.
    case droppedChunked
}
