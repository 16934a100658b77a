/// Which of a chat's writes goes first when its budget is short (Telegram allows about one a
/// second per chat): what the user waits on before what only shows progress, and progress
/// before the rest.
public enum SendPriority: Int, Sendable, Comparable {
    /// Questions, approval questions and final answers: someone is waiting on them.
    case answer = 0
    /// A live view of a run that is still streaming; a newer view replaces it.
    case live = 1
    /// Notices, echoes of prompts typed elsewhere, replies to commands.
    case notice = 2

    public static func < (a: SendPriority, b: SendPriority) -> Bool { a.rawValue < b.rawValue }
}
