import Testing

/// The scenario tests start a fake Discord and the built plugin each; they run one at a time so
/// the shared machine is not swamped and timing assertions mean something.
@Suite("Scenarios against the fake Discord", .serialized)
struct Scenarios {}
