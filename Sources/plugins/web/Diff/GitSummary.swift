/// A session folder's branch and how many files differ from it, for the sessions list:
/// `git status` with optional locks off, so the repository's index is not refreshed on disk,
/// and the repository's filters off (`GitRunner.inert`).
struct GitSummary: Sendable, Equatable {
    var branch: String
    var dirty: Int

    /// Nil when `cwd` is in no repository (or git is missing).
    static func read(_ cwd: String) async -> GitSummary? {
        guard let git = await GitRunner.inert(cwd: cwd, prefix: WorkTree.readOnly) else { return nil }
        // A submodule's own status would be a git run with settings this one did not make inert.
        let status = await git.run(["status", "--porcelain=v1", "--branch", "--untracked-files=normal", "--ignore-submodules=dirty"])
        guard status.status == 0, let first = status.lines.first, first.hasPrefix("## ") else { return nil }
        var branch = String(first.dropFirst(3))
        if let dots = branch.firstRange(of: "...") { branch = String(branch[..<dots.lowerBound]) }
        if branch.hasPrefix("No commits yet on ") { branch = String(branch.dropFirst("No commits yet on ".count)) }
        if let space = branch.firstIndex(of: " ") { branch = String(branch[..<space]) }
        return GitSummary(branch: branch, dirty: status.lines.count - 1)
    }
}
