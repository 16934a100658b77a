import Testing

/// The scenario tests start a fake Discord and the built plugin each. Each suite under this one
/// runs its tests one at a time (`.serialized` on each), so no more than one scenario per suite
/// runs at once: six at the most, each mostly waiting on the fake's rate-limit windows and the
/// gateway's timers, so timing assertions still mean something on a shared two-core machine.
@Suite("Scenarios against the fake Discord")
struct Scenarios {}
