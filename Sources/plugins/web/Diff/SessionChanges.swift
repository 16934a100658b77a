import FoundationEssentials
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

    /// Deletes the folders (snapshot, its objects) of sessions no longer in `sessions`, the
    /// daemon's whole list: a removed session's copies of changed files would otherwise stay for
    /// good. A snapshot taken within `snapshotGap` stays whatever the list says, as its session
    /// may be newer than the list; false when one was left so, to be looked at again.
    func prune(keeping sessions: Set<String>) -> Bool {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder) else { return true }
        var whole = true
        for name in names where !sessions.contains(name) {
            if let last = takenAt[name], ContinuousClock.now - last < Self.snapshotGap {
                whole = false
                continue
            }
            takenAt[name] = nil
            do {
                try fm.removeItem(atPath: folder + "/" + name)
                logger.info("removed the diff viewer's snapshot of session \(name), which is gone")
            } catch {
                logger.warning("cannot remove \(folder)/\(name): \(error)")
            }
        }
        return whole
    }

    /// Remembers the tree as a run starts; nothing when one was taken a moment ago. `cwd` nil:
    /// pi-relayd did not list the session (gone, or its control socket did not answer).
    func runStarts(_ session: String, cwd: String?) async {
        if let last = takenAt[session], ContinuousClock.now - last < Self.snapshotGap { return }
        guard let cwd else {
            logger.debug("no snapshot of session \(session) for this run's changes: pi-relayd did not list it")
            return
        }
        takenAt[session] = .now
        guard let tree = tree(session, cwd: cwd), await tree.repository() != nil else { return }
        do { try await tree.snapshot() } catch { logger.warning("no snapshot of \(cwd) for this run's changes: \(error)") }
    }
}
