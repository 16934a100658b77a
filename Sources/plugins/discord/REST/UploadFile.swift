/// A file to attach to a message, read by curl straight from the spool directory.
struct UploadFile: Sendable, Equatable {
    var path: String
    var filename: String
    var contentType: String
    var size: Int
}
