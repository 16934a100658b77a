import Foundation

/// The chat of examples/file-messenger.py, as its user sees it: lines appended to `in.txt` are
/// messages, `transcript.txt` is what the bot said.
struct FileChat {
    let folder: String

    init(home: TestHome, id: String = "filechat") {
        folder = home.path + "/state/plugins/" + id
    }

    /// A daemon with the fake pi, examples/file-messenger.py (user `me`) and the formatter, and a
    /// session `demo` in a folder of its own; `environment` is the daemon's (and pi's) more.
    /// `extraYAML`: more top-level sections (`sessions:`).
    static func start(
        in home: TestHome, environment: [String: String] = [:], extraYAML: String = ""
    ) async throws -> (daemon: Daemon, chat: FileChat) {
        let agent = home.path + "/agent", workspace = home.path + "/work"
        for dir in [agent, workspace] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        try home.writeConfig(
            TestConfig().yaml + """
                pi:
                  command: \(E2EConfig.fakePi)
                  agentDir: \(agent)
                  startTimeoutSeconds: 60
                filechat:
                  user: me
                  allowedUsers: [me]

                """ + extraYAML)
        try home.installFileMessenger()
        let formatter = BuildProducts.executable("pi-relay-formatter")
        try FileManager.default.createSymbolicLink(atPath: home.pluginsDir + "/formatter", withDestinationPath: formatter)
        let daemon = try await home.startDaemon(environment: environment)
        _ = try await daemon.waitForRunning("filechat", timeout: .seconds(60))
        _ = try await daemon.waitForRunning("formatter", timeout: .seconds(60))
        let created = try await home.run("new", "--cwd", workspace, "--name", "demo")
        guard created.status == 0 else { throw StackFailure("could not make the session demo: \(created)") }
        let chat = FileChat(home: home)
        try await chat.ready()
        return (daemon, chat)
    }

    /// Until the messenger has made its inbox.
    func ready() async throws {
        try await waitUntil("the messenger made its inbox", timeout: .seconds(20)) {
            FileManager.default.fileExists(atPath: folder + "/in.txt")
        }
    }

    func say(_ text: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/in.txt"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((text + "\n").utf8))
        try handle.close()
    }

    var transcript: String { (try? String(contentsOfFile: folder + "/transcript.txt", encoding: .utf8)) ?? "" }

    func waitFor(_ text: String, timeout: Duration = .seconds(60)) async throws {
        try await waitUntil("the transcript shows \(text)", timeout: timeout) { transcript.contains(text) }
    }
}
