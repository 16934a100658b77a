/// `toolCall` of a `toolcall_end`: `{"type":"toolCall","id","name","arguments":{…}}`.
public struct PiToolCall: Sendable, Hashable {
    public var id: String?
    public var name: String?
    public var arguments: PiRawJSON?

    public init(id: String? = nil, name: String? = nil, arguments: PiRawJSON? = nil) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }
}
