/// `toolCall` of a `toolcall_end`: `{"type":"toolCall","id","name","arguments":{…}}`.
package struct PiToolCall: Sendable, Hashable {
    package var id: String?
    package var name: String?
    package var arguments: PiRawJSON?

    package init(id: String? = nil, name: String? = nil, arguments: PiRawJSON? = nil) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }
}
