/// What pi does with a prompt that arrives while a run goes on (pi-rpc spec §5).
public enum PiStreamingBehavior: String, Sendable, Equatable {
    /// Into the running turn.
    case steer
    /// After the run.
    case followUp
}
