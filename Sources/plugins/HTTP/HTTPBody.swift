/// What goes after a request's headers.
package enum HTTPBody: Sendable {
    case none
    case json([UInt8])
    /// Bytes with a Content-Type of the caller's (Slack wants `application/json; charset=utf-8`,
    /// form bodies, and raw uploads).
    case bytes([UInt8], contentType: String)
    /// multipart/form-data; file parts are streamed from disk by curl on the loop thread.
    case multipart([HTTPFormPart])
}
