import Logging
import PiRelaySDK

/// The diff viewer's side of each session: its working tree's folder in the plugin's state, the
/// snapshot taken when a run starts, and the diffs pages ask for. Only a session's own folder,
/// as the sessions list gives it, is ever read: never a path a page sends.
actor SessionChanges {
    /// Two signs of one run start (a prompt sent here, its first live view) take one snapshot.
    static let snapshotGap: Duration = .seconds(5)

    private let folder: String
    private let logger: Logger
    private var takenAt: [String: ContinuousClock.Instant] = [:]

    init(folder: String, logger: Logger) {
        self.folder = folder
        self.logger = logger
    }

    /// Nil for an id that cannot name a folder (the session ids pi-relayd makes always can).
    func tree(_ session: String, cwd: String) -> WorkTree? {
        guard WebPlace.isFileSafe(session) else { return nil }
        return WorkTree(cwd: cwd, folder: folder + "/" + session)
    }

    /// Remembers the tree as a run starts; nothing when one was taken a moment ago.
    func runStarts(_ session: String, cwd: String) async {
        if let last = takenAt[session], ContinuousClock.now - last < Self.snapshotGap { return }
        takenAt[session] = .now
        guard let tree = tree(session, cwd: cwd), await tree.repository() != nil else { return }
        do { try await tree.snapshot() } catch { logger.warning("no snapshot of \(cwd) for this run's changes: \(error)") }
    }
}
