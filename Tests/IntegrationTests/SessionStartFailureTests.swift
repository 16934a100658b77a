import Foundation
import PiRelaySDK
import Testing

/// A pi that cannot start: `new` fails with a message that says why, and leaves no session.
@Suite struct SessionStartFailureTests {
    @Test func piMissingFromPathFailsNewClearly() async throws {
        try await SessionHome.with(SessionConfig(command: "no-such-pi")) { s in
            let daemon = try await s.start()
            let plain = try await s.run("new", "--cwd", s.project, "--name", "x")
            #expect(plain.status == 1, "\(plain)")
            #expect(
                plain.stderr == "pi-relayd: could not start pi for session x: pi could not start: no-such-pi was not found in PATH\n",
                "\(plain)")
            let json = try await s.run("new", "--cwd", s.project, "--json")
            #expect(json.status == 1)
            let error = try json.json()["error"]
            #expect(error?["code"] == "pi_error", "\(json)")
            #expect(error?["message"]?.stringValue?.contains("no-such-pi was not found in PATH") == true, "\(json)")
            #expect(try await s.sessions().isEmpty, "a session whose pi never started is not kept")

            let absent = s.home.scratch + "/nowhere/pi"
            try s.configure(SessionConfig(command: absent))
            let stop = try await s.run("stop")
            #expect(stop.status == 0, "\(stop)")
            #expect(await daemon.waitForExit() == .exited(0))
            try await s.start()
            let missing = try await s.run("new", "--cwd", s.project)
            #expect(missing.stderr.contains("\(absent) does not exist or is not executable"), "\(missing)")
        }
    }

    /// `pi.command: pi` with an empty entry in PATH (`PATH=:/usr/bin`, what `$UNSET:$PATH`
    /// makes): pi is the one PATH's folders hold, never a program of that name in the session's
    /// folder (a cloned repository can carry one). The child is started in the session's folder,
    /// and a search made there would take the empty entry for it.
    @Test func aProgramInTheSessionsFolderIsNeverTakenForPi() async throws {
        try await SessionHome.with(SessionConfig(command: "pi")) { s in
            try FileManager.default.createDirectory(atPath: s.project, withIntermediateDirectories: true)
            let marker = s.home.scratch + "/planted-ran"
            let planted = s.project + "/pi"
            try Data("#!/bin/sh\ntouch \(marker)\nexit 1\n".utf8).write(to: URL(fileURLWithPath: planted))
            chmod(planted, 0o755)
            let fakes = (SessionConfig.fakePi as NSString).deletingLastPathComponent
            let path = ":" + fakes + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            _ = try await s.home.startDaemon(environment: ["PATH": path])
            let started = try await s.run("new", "--cwd", s.project, "--name", "cloned")
            #expect(started.status == 0, "\(started)")
            #expect(!FileManager.default.fileExists(atPath: marker), "the session folder's pi ran")
        }
    }

    @Test func piExitingAtStartCarriesItsStderr() async throws {
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_NO_MODELS": "1"])) { s in
            let daemon = try await s.start()
            let result = try await s.run("new", "--cwd", s.project, "--name", "nomodel")
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.hasPrefix("pi-relayd: could not start pi for session nomodel: pi exited with status 1"), "\(result)")
            #expect(result.stderr.contains("No models available."), "pi's own words reach the user: \(result)")
            #expect(try await s.sessions().isEmpty)
            #expect(s.children(besides: [daemon]).allSatisfy { !SessionHome.commandLine($0).contains("rpc") }, "no pi left behind")
        }
    }

    /// A session with approval rules whose extension is wanted but cannot be loaded (here: of
    /// another version) does not start: a gate that cannot ask denies, and its pi would run every
    /// call ungated. A session without rules still starts, told that gates and tools are off.
    @Test func aGatedSessionDoesNotStartWithoutItsExtension() async throws {
        let rules = "approvals:\n  sessions:\n    gated:\n      rules:\n        - name: rm-rf\n          tools: bash\n          command: 'rm -rf'\n"
        try await SessionHome.with(SessionConfig(extraYAML: rules)) { s in
            let stale = s.home.scratch + "/old-extension"
            try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: true)
            try Data("export { EXTENSION_VERSION } from \"./version.ts\";\n".utf8).write(to: URL(fileURLWithPath: stale + "/index.ts"))
            try Data("export const EXTENSION_VERSION = \"0.0.9\";\n".utf8).write(to: URL(fileURLWithPath: stale + "/version.ts"))
            let daemon = try await s.home.startDaemon(environment: ["PI_RELAYD_EXTENSION": stale])

            let refused = try await s.run("new", "--cwd", s.project, "--name", "gated")
            #expect(refused.status == 1, "\(refused)")
            #expect(
                refused.stderr.contains(
                    "session gated has approval rules (rm-rf) and the extension that applies them cannot be loaded: "
                        + "the pi-relayd extension at \(stale)/index.ts is version 0.0.9, not "),
                "\(refused)")
            #expect(refused.stderr.contains(". No pi was started, so no call ran without its gate"), "\(refused)")
            let sessions = try await s.sessions()
            #expect(sessions.isEmpty, "\(sessions)")
            #expect(s.children(besides: [daemon]).allSatisfy { !SessionHome.commandLine($0).contains("rpc") }, "no pi was started")

            let free = try await s.json("new", "--cwd", s.project, "--name", "free")
            #expect(free["state"] == "idle", "a session without rules starts: \(free)")
            // Gates are looked up by name: taking a gated name would leave the running pi ungated.
            let renamed = try await s.run("rename", "free", "gated")
            #expect(renamed.status == 1 && renamed.stderr.contains("approvals.sessions.gated in config.yaml"), "\(renamed)")
        }
    }

    /// pi-extension-api.md §1.2: an extension that fails to load (its factory throws, pi's API
    /// moved under it) is reported on stderr and pi starts anyway, without it. With approval
    /// rules, that pi would run every call ungated: its prompts are refused, and the chats and
    /// `status` say why, until a pi that loads the extension runs.
    @Test func aPiThatCouldNotLoadTheExtensionRunsNoPromptOfAGatedSession() async throws {
        let rules = "approvals:\n  sessions:\n    gated:\n      rules:\n        - name: rm-rf\n          tools: bash\n          command: 'rm -rf'\n"
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_EXTENSION_LOAD_ERROR": "1"], extraYAML: rules)) { s in
            try await s.start()
            let id = try await s.new(name: "gated")
            try await waitUntil("the load failure is heard") { try await s.history(id, "--type", "extension_not_loaded").count == 1 }
            let refused = try await s.run("send", "gated", "rm -rf build")
            #expect(refused.status != 0 && refused.stderr.contains("did not load pi-relayd's extension"), "\(refused)")
            #expect(s.piInput("prompt").isEmpty, "no prompt reached the ungated pi")
            let problems = try await s.json("status")["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(problems.contains { $0.contains("gated") && $0.contains("extension") }, "\(problems)")

            // A session with no rules is only told: it has no gate to lose.
            let free = try await s.new(name: "free")
            try await s.prompt(free, "hello")
            #expect(try await s.last(free) == "Echo: hello")
        }
    }
}
