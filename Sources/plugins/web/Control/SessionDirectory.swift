import PiRelaySDK

/// A session's row as pi-relayd lists it: the board's copy, kept fresh only while a page is open,
/// else read from the control socket. A session made a moment ago, prompted before the first
/// list reached the board, or an API call with no page open, is still found.
struct SessionDirectory: Sendable {
    let board: Board
    let control: ControlReader

    func summary(_ session: String) async -> JSONValue? {
        if let known = board.session(session) { return known }
        return (try? await control.call(.sessions))?.arrayValue?.first { $0["id"]?.stringValue == session }
    }

    /// The session's own folder, the only one the diff viewer reads.
    func cwd(_ session: String) async -> String? {
        await summary(session)?["cwd"]?.stringValue
    }
}
