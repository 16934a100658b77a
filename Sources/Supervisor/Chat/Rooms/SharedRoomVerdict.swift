/// What one daemon does with a request in a shared room (`SharedRoomRule`).
package enum SharedRoomVerdict: Equatable, Sendable {
    /// Act on it here as in any chat: `/sessions` on every machine, the rest on the picked one.
    case handle
    /// Act here on this command, the machine's name taken off what was written.
    case run(ChatCommand)
    /// For another machine: say nothing, do nothing.
    case silent
    /// A bare `/use NAME` or `/to NAME …`: binds and sends nothing. A machine that has a session
    /// NAME answers with how to name it (`example`); the others say nothing.
    case whichMachine(session: String, example: String)
    /// No machine is picked in the room: say how to pick one.
    case hint(String)
}
