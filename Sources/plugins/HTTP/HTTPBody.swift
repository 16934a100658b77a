/// What goes after a request's headers.
package enum HTTPBody: Sendable {
    case none
    case json([UInt8])
    /// multipart/form-data; file parts are streamed from disk by curl on the loop thread.
    case multipart([HTTPFormPart])
}
