/// How a prompt reaches a session (the control methods `send`, `steer` and `follow-up`, and a
/// chat's message and `/steer`, `/followup`): a new turn (queued as pi's configured busy
/// behaviour while one runs), a steer of the running turn, or a follow-up after it.
public enum PromptKind: String, Sendable, CaseIterable {
    case send
    case steer
    case followUp = "follow-up"

    /// The control method that sends it.
    public var method: ControlMethod {
        switch self {
        case .send: .send
        case .steer: .steer
        case .followUp: .followUp
        }
    }

    /// The kind a prompt control method sends; nil for any other method.
    public init?(_ method: ControlMethod) {
        guard let kind = Self.allCases.first(where: { $0.method == method }) else { return nil }
        self = kind
    }
}
