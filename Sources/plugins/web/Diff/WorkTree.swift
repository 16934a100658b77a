import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// A session's git working tree as the diff viewer shows it, computed without writing the
/// repository: the tree as it is now is staged into an index of the dashboard's own
/// (`GIT_INDEX_FILE`, begun from a copy of the repository's so that only changed files are
/// read), its new blobs into an object folder of its own (`GIT_OBJECT_DIRECTORY`,
/// the repository's objects read as alternates), and diffed against HEAD or against the
/// snapshot taken when a run started ("changes made by this run"). Untracked files are in the
/// staged tree, so they show as added; ignored ones stay out. A diff's index and objects are
/// deleted when it is done; the snapshot's are replaced by the next one, so nothing grows.
struct WorkTree: Sendable {
    /// The empty tree: the base of a repository without a commit yet.
    static let emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    /// Settings that keep `git add` out of the repository's .git: no split index (its shared
    /// part lives in .git), no automatic maintenance. Filters (LFS's stores objects under
    /// .git/lfs) are off through `GitRunner.inert`.
    static let readOnly = [
        "-c", "core.splitIndex=false", "-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "core.untrackedCache=false",
    ]

    let cwd: String
    /// This session's folder in the plugin's state (made on first use).
    let folder: String

    private var snapshotFile: String { folder + "/run-snapshot" }
    private var snapshotObjects: String { folder + "/snapshot-objects" }

    /// Where the repository keeps what the dashboard reads: its object folder and its index.
    struct Repository: Sendable {
        var objects: String
        var index: String
        /// The working tree's top folder: a diff's paths are relative to it.
        var top: String
    }

    /// The repository `cwd` is in; nil when it is in none.
    func repository() async -> Repository? {
        let found = await GitRunner(cwd: cwd).run([
            "rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel", "--git-path", "index",
        ])
        guard found.status == 0, found.lines.count >= 3 else { return nil }
        return Repository(objects: found.lines[0] + "/objects", index: found.lines[2], top: found.lines[1])
    }

    /// The tree of the working folder as it is now (tracked and untracked, not ignored), staged
    /// with `index` and `objects` (both under `folder`).
    private func stage(index: String, objects into: String) async throws -> (tree: String, git: GitRunner, top: String) {
        guard let repository = await repository() else { throw RemoteError(code: .notFound, message: "\(cwd) is not in a git repository") }
        try FileManager.default.createDirectory(atPath: into, withIntermediateDirectories: true)
        let alternates = [repository.objects] + (FileManager.default.fileExists(atPath: snapshotObjects) ? [snapshotObjects] : [])
        let environment = [
            "GIT_INDEX_FILE": index, "GIT_OBJECT_DIRECTORY": into, "GIT_ALTERNATE_OBJECT_DIRECTORIES": alternates.joined(separator: ":"),
        ]
        guard let git = await GitRunner.inert(cwd: cwd, prefix: Self.readOnly, environment: environment) else {
            throw RemoteError(code: .internal, message: "cannot read the git settings of \(cwd), or they put its work tree elsewhere (core.worktree)")
        }
        let head = await git.run(["rev-parse", "--verify", "--quiet", "HEAD^{tree}"])
        let base = head.status == 0 ? head.lines.first ?? Self.emptyTree : Self.emptyTree
        // HEAD's tree, with the stat data of the repository's own index where a file is as HEAD
        // has it (`read-tree -m`): `git add` then reads only the files that changed. Without
        // it, every file of the tree was read and hashed again on each diff.
        var read = false
        if Self.seed(index, from: repository), await git.run(["read-tree", "-m", base]).status == 0 {
            read = await unflagged(git)
        }
        if !read { _ = await git.run(["read-tree", base]) }
        let added = await git.run(["add", "-A", "--", "."])
        guard added.status == 0 else { throw RemoteError(code: .internal, message: "git add failed: \(added.stderr)") }
        let tree = await git.run(["write-tree"])
        guard tree.status == 0, let id = tree.lines.first else {
            throw RemoteError(code: .internal, message: "git write-tree failed: \(tree.stderr)")
        }
        return (id, git, repository.top)
    }

    /// Copies the repository's index to `index`, with its modification time: git takes an entry
    /// as new as its index for one that may have changed unseen ("racy"), and a copy made now
    /// would hide such a change. False when there is none to copy, or it is split (its shared
    /// part, `sharedindex.*` beside it, is one git may expire when an index naming it is written).
    private static func seed(_ index: String, from repository: Repository) -> Bool {
        let fm = FileManager.default
        let folder = String(repository.index[..<(repository.index.lastIndex(of: "/") ?? repository.index.startIndex)])
        let split = (try? fm.contentsOfDirectory(atPath: folder))?.contains { $0.hasPrefix("sharedindex.") } ?? true
        guard !split, let bytes = fm.contents(atPath: repository.index) else { return false }
        var original = stat()
        guard stat(repository.index, &original) == 0,
            fm.createFile(atPath: index, contents: bytes, attributes: [.posixPermissions: 0o600])
        else { return false }
        let times = [original.st_atim, original.st_mtim]
        return utimensat(AT_FDCWD, index, times, 0) == 0
    }

    /// Whether the seeded index marks no file of this folder for git to leave unread: an entry
    /// flagged assume-unchanged (`update-index --assume-unchanged`, a lowercase tag in
    /// `ls-files -v`), or skip-worktree (`S`) with the file there, would keep HEAD's copy in the
    /// staged tree whatever the file holds. Out-of-cone files of a sparse checkout are not there,
    /// and stay out.
    private func unflagged(_ git: GitRunner) async -> Bool {
        let listed = await git.run(["ls-files", "-v"])
        guard listed.status == 0, !listed.truncated else { return false }
        for line in listed.lines {
            guard let tag = line.first else { continue }
            // A name git quotes (odd characters) cannot be looked up as it is printed.
            if tag.isLowercase || line.dropFirst(2).hasPrefix("\"") { return false }
            if tag == "S", FileManager.default.fileExists(atPath: cwd + "/" + line.dropFirst(2)) { return false }
        }
        return true
    }

    /// Remembers the tree as it is now, for "changes made by this run". A snapshot that fails
    /// leaves none, rather than the last run's.
    func snapshot() async throws {
        let fm = FileManager.default
        try? fm.removeItem(atPath: snapshotFile)
        try? fm.removeItem(atPath: snapshotObjects)
        let index = folder + "/snapshot.index"
        defer { try? fm.removeItem(atPath: index) }
        let (tree, _, _) = try await stage(index: index, objects: snapshotObjects)
        let record: JSONValue = ["tree": .string(tree), "at": .string(ISO8601.string(Date()))]
        _ = fm.createFile(atPath: snapshotFile, contents: Data(record.serializedBytes()), attributes: [.posixPermissions: 0o600])
    }

    /// The changes against HEAD (`run: false`) or against the run's snapshot, as files and hunks.
    func diff(sinceRun run: Bool) async throws -> JSONValue {
        // An index and objects of its own per request (two pages may ask at once), gone after.
        let scratch = folder + "/now-" + RandomName.hex(bytes: 8)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var base = Self.emptyTree
        var since: String?
        if run {
            guard let data = FileManager.default.contents(atPath: snapshotFile), let record = try? JSONValue.parse(bytes: data),
                let tree = record["tree"]?.stringValue
            else {
                throw RemoteError(code: .notFound, message: "no run has started since the dashboard began watching this session")
            }
            base = tree
            since = record["at"]?.stringValue
        }
        let (tree, git, top) = try await stage(index: scratch + "/index", objects: scratch + "/objects")
        if !run {
            let head = await git.run(["rev-parse", "--verify", "--quiet", "HEAD^{tree}"])
            if head.status == 0, let id = head.lines.first { base = id }
        }
        let output = await git.run(["diff-tree", "-r", "-p", "-M", "--no-color", "--no-ext-diff", "--no-textconv", base, tree])
        guard output.status == 0 else { throw RemoteError(code: .internal, message: "git diff failed: \(output.stderr)") }
        let branch = await git.run(["symbolic-ref", "--short", "-q", "HEAD"])
        var result: JSONValue = [
            "base": .string(run ? "run" : "head"), "branch": .string(branch.lines.first ?? ""),
            "files": .array(DiffParser.files(output.lines, in: top)), "truncated": .bool(output.truncated),
        ]
        if let since { result["since"] = .string(since) }
        return result
    }
}
