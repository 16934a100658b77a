import FoundationEssentials
import PiRelaySDK
import SupervisorIO

/// Runs `git` in a session's folder, its pipes read by the supervisor's epoll thread (no thread
/// of the pool blocks on them), and collects what it printed. The repository is only read:
/// optional locks are off, and every index and object the dashboard writes goes to its own
/// folder (`environment`). Nothing the repository names is run: its hooks are off, and a runner
/// made with `inert` turns off every filter driver (the agent can write .git/config as easily
/// as any file, and a driver is a command git runs on every file it hashes).
struct GitRunner: Sendable {
    /// More than a page should hold; a bigger output is cut and marked.
    static let maxOutputBytes = 4 << 20

    struct Output: Sendable {
        var lines: [String]
        var status: Int32
        var truncated: Bool
        var stderr: String
    }

    let cwd: String
    /// `-c` settings before the command.
    var prefix: [String] = []
    var environment: [String: String] = [:]

    /// A runner for commands that hash files (`add`, `status`): every filter driver the
    /// settings name, the repository's or an included file's, made to do nothing. Nil when the
    /// settings cannot be read, or put the work tree where `cwd` is not (`core.worktree`: then
    /// `status` and `add -A -- .` would read that folder, `$HOME` or `/`), and then nothing is run.
    static func inert(cwd: String, prefix: [String] = [], environment: [String: String] = [:]) async -> GitRunner? {
        let found = await GitRunner(cwd: cwd, environment: environment).run([
            "config", "--name-only", "--get-regexp", #"^filter\.|^core\.worktree$"#,
        ])
        // Status 1: no such setting.
        guard found.status == 0 || found.status == 1, !found.truncated else { return nil }
        if found.lines.contains("core.worktree") {
            // Only the folder that holds the repository's `.git` may be its work tree: one set
            // above it (`$HOME`, `/`) holds the session folder too, and `status` would read it all.
            let top = await GitRunner(cwd: cwd, environment: environment).run(["rev-parse", "--show-toplevel", "--absolute-git-dir"])
            guard top.status == 0, top.lines.count >= 2, let here = cwd.realPath, let root = top.lines[0].realPath,
                let gitDir = top.lines[1].realPath, gitDir.hasSuffix("/.git"), root == String(gitDir.dropLast(5)), here.isWithin(root)
            else { return nil }
        }
        var settings: [(key: String, value: String)] = []
        for name in Set(found.lines.compactMap(Self.driver)).sorted() {
            for key in ["clean", "smudge", "process"] { settings.append(("filter.\(name).\(key)", "")) }
            settings.append(("filter.\(name).required", "false"))
        }
        // Given as GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n, not `-c`: git splits a `-c` at its
        // first `=`, so a driver named `x=y` would set `filter.x` and keep its own command.
        // After the ones the owner's environment sets (`safe.directory` in a container, say).
        var env = environment
        let inherited = Int(environment["GIT_CONFIG_COUNT"] ?? ProcessInfo.processInfo.environment["GIT_CONFIG_COUNT"] ?? "") ?? 0
        env["GIT_CONFIG_COUNT"] = String(inherited + settings.count)
        for (n, setting) in settings.enumerated() {
            env["GIT_CONFIG_KEY_\(inherited + n)"] = setting.key
            env["GIT_CONFIG_VALUE_\(inherited + n)"] = setting.value
        }
        return GitRunner(cwd: cwd, prefix: prefix, environment: env)
    }

    /// `filter.NAME.KEY` → NAME (which may hold dots of its own).
    static func driver(_ setting: String) -> String? {
        guard setting.hasPrefix("filter."), let dot = setting.lastIndex(of: ".") else { return nil }
        let name = setting[setting.index(setting.startIndex, offsetBy: 7)..<dot]
        return name.isEmpty ? nil : String(name)
    }

    func run(_ arguments: [String]) async -> Output {
        var env = environment
        env["GIT_OPTIONAL_LOCKS"] = "0"
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["LC_ALL"] = "C"
        // A partial clone fetches missing objects on demand, through a transport the repository
        // names (`core.sshCommand` is a command): the dashboard never reaches the network. And no
        // transport at all, whatever the repository's `protocol.<name>.allow` says (it beats the
        // `protocol.allow=never` below; this beats every setting), for a git that predates
        // GIT_NO_LAZY_FETCH: `ext::` runs a command.
        env["GIT_NO_LAZY_FETCH"] = "1"
        env["GIT_ALLOW_PROTOCOL"] = "none"
        let spec = ChildSpec(
            executable: "git",
            arguments: [
                "-c", "core.quotepath=off", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "diff.external=", "-c",
                "protocol.allow=never",
                "--no-pager",
            ]
                + prefix + arguments,
            environment: env, workingDirectory: cwd, maxLineBytes: 1 << 20)
        let ran = await ChildOutput.collect(spec, maxBytes: Self.maxOutputBytes, maxStderr: 4000)
        var output = Output(lines: ran.lines, status: -1, truncated: ran.truncated, stderr: ran.stderr)
        switch ran.exit {
        case .exited(let status): output.status = status
        case .signaled(let signal): output.status = 128 + signal
        case .spawnFailed(let why): output.stderr = why
        }
        return output
    }
}
