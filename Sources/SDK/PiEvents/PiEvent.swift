/// One line of pi's stdout, reduced to what the relay acts on. Built by `PiEventReader`.
package struct PiEvent: Sendable, Hashable {
    package var type: PiEventType
    package var payload: Payload

    package init(type: PiEventType, payload: Payload = .none) {
        self.type = type
        self.payload = payload
    }
}
