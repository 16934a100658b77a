import FoundationEssentials
import PiRelaySDK

/// A session's git working tree as the diff viewer shows it, computed without writing the
/// repository: the tree as it is now is staged into an index of the dashboard's own
/// (`GIT_INDEX_FILE`), its new blobs into an object folder of its own (`GIT_OBJECT_DIRECTORY`,
/// the repository's objects read as alternates), and diffed against HEAD or against the
/// snapshot taken when a run started ("changes made by this run"). Untracked files are in the
/// staged tree, so they show as added; ignored ones stay out.
struct WorkTree: Sendable {
    /// The empty tree: the base of a repository without a commit yet.
    static let emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

    let cwd: String
    /// This session's folder in the plugin's state (made on first use).
    let folder: String

    private var snapshotFile: String { folder + "/run-snapshot" }

    /// The repository's object folder; nil when `cwd` is in no repository.
    func objects() async -> String? {
        let found = await GitRunner(cwd: cwd).run(["rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel"])
        guard found.status == 0, found.lines.count >= 2 else { return nil }
        return found.lines[0] + "/objects"
    }

    /// The tree of the working folder as it is now (tracked and untracked, not ignored).
    func stage(into index: String) async throws -> (tree: String, git: GitRunner) {
        guard let objects = await objects() else { throw RemoteError(code: .notFound, message: "\(cwd) is not in a git repository") }
        try FileManager.default.createDirectory(atPath: folder + "/objects", withIntermediateDirectories: true)
        let git = GitRunner(
            cwd: cwd,
            environment: [
                "GIT_INDEX_FILE": folder + "/" + index, "GIT_OBJECT_DIRECTORY": folder + "/objects", "GIT_ALTERNATE_OBJECT_DIRECTORIES": objects,
            ])
        let head = await git.run(["rev-parse", "--verify", "--quiet", "HEAD^{tree}"])
        _ = await git.run(["read-tree", head.status == 0 ? head.lines.first ?? Self.emptyTree : Self.emptyTree])
        let added = await git.run(["add", "-A", "--", "."])
        guard added.status == 0 else { throw RemoteError(code: .internal, message: "git add failed: \(added.stderr)") }
        let tree = await git.run(["write-tree"])
        guard tree.status == 0, let id = tree.lines.first else {
            throw RemoteError(code: .internal, message: "git write-tree failed: \(tree.stderr)")
        }
        return (id, git)
    }

    /// Remembers the tree as it is now, for "changes made by this run".
    func snapshot() async throws {
        let (tree, _) = try await stage(into: "snapshot.index")
        _ = FileManager.default.createFile(atPath: snapshotFile, contents: Data(tree.utf8), attributes: [.posixPermissions: 0o600])
    }

    var hasSnapshot: Bool { FileManager.default.fileExists(atPath: snapshotFile) }

    /// The changes against HEAD (`run: false`) or against the run's snapshot, as files and hunks.
    func diff(sinceRun run: Bool) async throws -> JSONValue {
        // An index of its own per request: two pages may ask at once.
        var generator = SystemRandomNumberGenerator()
        let index = "now-\(generator.next() & 0xffff_ffff).index"
        defer { try? FileManager.default.removeItem(atPath: folder + "/" + index) }
        let (tree, git) = try await stage(into: index)
        var base = Self.emptyTree
        if run {
            guard let data = FileManager.default.contents(atPath: snapshotFile) else {
                throw RemoteError(code: .notFound, message: "no run has started since the dashboard began watching this session")
            }
            base = String(decoding: data, as: UTF8.self)
        } else {
            let head = await git.run(["rev-parse", "--verify", "--quiet", "HEAD^{tree}"])
            if head.status == 0, let id = head.lines.first { base = id }
        }
        let output = await git.run(["diff-tree", "-r", "-p", "-M", "--no-color", "--no-ext-diff", "--no-textconv", base, tree])
        guard output.status == 0 else { throw RemoteError(code: .internal, message: "git diff failed: \(output.stderr)") }
        let branch = await git.run(["symbolic-ref", "--short", "-q", "HEAD"])
        return [
            "base": .string(run ? "run" : "head"), "branch": .string(branch.lines.first ?? ""),
            "files": .array(DiffParser.files(output.lines)), "truncated": .bool(output.truncated),
        ]
    }
}
