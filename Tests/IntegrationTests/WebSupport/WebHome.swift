import Foundation
import PiRelaySDK
import Testing

/// A session home whose daemon also runs the real formatter, attachments and web plugins, the dashboard on a
/// free loopback port; tests act as a browser through `WebClient` and `WebPage`.
struct WebHome: Sendable {
    let sessions: SessionHome
    let port: Int
    var home: TestHome { sessions.home }
    var base: String { "http://127.0.0.1:\(port)" }

    /// Runs `body` with a started daemon whose web and formatter plugins run. `web.roots` is the
    /// scratch folder, or with `defaultRoots` left to its default, with `sessions.defaultCwd` the project.
    /// `piEnv`: the fake pi's variables (`FAKE_PI_COMPACT_MS`).
    static func with<T>(
        extraWeb: String = "", defaultRoots: Bool = false, piEnv: [String: String] = [:], _ body: (WebHome) async throws -> T
    ) async throws -> T {
        try await SessionHome.with { sessions in
            let port = try LoopbackHTTP.freePort()
            try sessions.home.linkBuiltPlugin("pi-relay-formatter", as: "formatter")
            try sessions.home.linkBuiltPlugin("pi-relay-web", as: "web")
            try sessions.home.linkBuiltPlugin("pi-relay-attachments", as: "attachments")
            var settings = SessionConfig()
            settings.env = piEnv
            if defaultRoots { settings.defaultCwd = sessions.project }
            let config = settings.yaml(piLog: sessions.piLog, agentDir: sessions.agentDir)
            let roots = defaultRoots ? "" : "  roots: [\(SessionConfig.quoted(sessions.home.scratch))]\n"
            try sessions.home.writeConfig(config + "web:\n  listen: 127.0.0.1:\(port)\n" + roots + extraWeb)
            let daemon = try await sessions.start()
            for plugin in ["formatter", "web", "attachments"] { try await daemon.waitForRunning(plugin, timeout: .seconds(60)) }
            let web = WebHome(sessions: sessions, port: port)
            try await waitUntil("the dashboard answers", timeout: .seconds(30)) { (try? await web.client().get("/assets/style.css").status) == 200 }
            return try await body(web)
        }
    }

    func client(cookie: String? = nil) -> WebClient { WebClient(base: base, cookie: cookie) }

    /// `pi-relayd pair web --json`: the sign-in link.
    func pairingLink() async throws -> String {
        let result = try await sessions.run("pair", "web", "--json")
        #expect(result.status == 0, "\(result)")
        let last = try #require(result.stdout.split(separator: "\n").last.map(String.init), "\(result)")
        return try #require(try JSONValue.parse(last)["link"]?.stringValue, "\(result)")
    }

    /// Pairs a new browser: the cookie its sign-in set.
    func signIn() async throws -> (cookie: String, user: String) {
        let before = try await webUsers()
        let link = try await pairingLink()
        let response = try await client().post(String(link.dropFirst(base.count)), [:])
        #expect(response.status == 303 && response[header: "location"] == "/", "\(response.status) \(response.headers)")
        let setCookie = try #require(response[header: "set-cookie"], "\(response.headers)")
        let pair = try #require(setCookie.split(separator: ";").first.map(String.init))
        let user = try await waitFor("the new web user in pi-relayd users") { try await webUsers().subtracting(before).first }
        return (pair, user)
    }

    /// The paired web users, from `pi-relayd users --json`.
    func webUsers() async throws -> Set<String> {
        let listed = try await sessions.json("users")["users"]?.arrayValue ?? []
        return Set(listed.filter { $0["messenger"] == "web" }.compactMap { $0["id"]?.stringValue })
    }
}

extension WebHome {
    /// Runs `script` with /bin/sh in `folder`; what it printed. A failure throws.
    @discardableResult
    func shell(_ script: String, in folder: String) async throws -> String {
        let out = home.scratch + "/shell-\(UInt32.random(in: 0...UInt32.max)).out"
        let process = try SpawnedProcess(
            "/bin/sh", ["-c", "cd \"$0\" && " + script, folder], environment: ProcessInfo.processInfo.environment, stdoutPath: out,
            stderrPath: out + ".err")
        let exit = await process.wait(timeout: .seconds(60))
        let printed = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        guard exit == .exited(0) else {
            throw SpawnedProcess.SpawnError(
                description: "\(script): \(String(describing: exit)) \(printed) \((try? String(contentsOfFile: out + ".err", encoding: .utf8)) ?? "")"
            )
        }
        return printed
    }
}
