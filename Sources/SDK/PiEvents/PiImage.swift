/// An image block from a tool result: what a tool produced, as pi carries it (base64).
package struct PiImage: Sendable, Hashable {
    package var mimeType: String
    package var base64: String

    package init(mimeType: String, base64: String) {
        self.mimeType = mimeType
        self.base64 = base64
    }
}
