/// An answer to an extension's dialog (pi-rpc spec §4): `value` for select, input and editor,
/// `confirmed` for confirm, `cancelled` for any.
public enum PiUIAnswer: Sendable, Equatable {
    case value(String)
    case confirmed(Bool)
    case cancelled
}
