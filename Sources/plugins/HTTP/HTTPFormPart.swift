/// One part of a multipart/form-data body.
package struct HTTPFormPart: Sendable, Equatable {
    package enum Content: Sendable, Equatable {
        case bytes([UInt8])
        /// Read by curl from this path while sending.
        case file(path: String)
    }

    package var name: String
    package var content: Content
    package var filename: String?
    package var contentType: String?

    package init(name: String, content: Content, filename: String? = nil, contentType: String? = nil) {
        self.name = name
        self.content = content
        self.filename = filename
        self.contentType = contentType
    }
}
