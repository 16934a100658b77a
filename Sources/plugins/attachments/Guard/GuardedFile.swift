/// A workspace file that passed `PathGuard`, held open so the bytes copied are the bytes checked.
/// The receiver closes `fd`.
struct GuardedFile: Sendable {
    let fd: Int32
    /// The fully resolved path.
    let path: String
    /// The name the user or agent asked for (a symlink keeps its own name).
    let name: String
    let size: Int
}
