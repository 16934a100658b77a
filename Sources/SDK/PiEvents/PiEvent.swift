/// One line of pi's stdout, reduced to what the relay acts on. Built by `PiEventReader`.
public struct PiEvent: Sendable, Hashable {
    public var type: PiEventType
    public var payload: Payload

    public init(type: PiEventType, payload: Payload = .none) {
        self.type = type
        self.payload = payload
    }
}
