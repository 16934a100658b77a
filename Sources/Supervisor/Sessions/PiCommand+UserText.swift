import PiRelaySDK

extension PiCommand {
    /// A user message for the agent (a prompt, steer or follow-up): what a pi without its gates
    /// must not be given.
    var carriesUserText: Bool {
        switch self {
        case .prompt, .steer, .followUp: true
        default: false
        }
    }
}
