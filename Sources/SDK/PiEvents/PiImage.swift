/// An image block from a tool result: what a tool produced, as pi carries it (base64).
public struct PiImage: Sendable, Hashable {
    public var mimeType: String
    public var base64: String

    public init(mimeType: String, base64: String) {
        self.mimeType = mimeType
        self.base64 = base64
    }
}
