import Foundation
import PiRelaySDK
import Testing

/// Issue 16, point 9: grouped help, and shell completions whose session names come from the
/// running daemon.
@Suite struct CLIHelpTests {
    @Test func helpGroupsTheCommands() async throws {
        try await TestHome.with(gated: false) { home in
            let help = try await home.run("--help").stdout
            let groups = ["DAEMON SUBCOMMANDS:", "SESSIONS SUBCOMMANDS:", "PLUGINS SUBCOMMANDS:", "SETUP SUBCOMMANDS:"]
            let positions = groups.map { help.range(of: $0)?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil }, "\(help)")
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "in this order: \(help)")
            func group(of command: String) -> String? {
                guard let line = help.range(of: "\n  \(command) ") ?? help.range(of: "\n  \(command), ") else { return nil }
                return groups.last { help.range(of: $0).map { $0.lowerBound < line.lowerBound } ?? false }
            }
            #expect(group(of: "restart") == "DAEMON SUBCOMMANDS:", "\(help)")
            #expect(group(of: "send") == "SESSIONS SUBCOMMANDS:" && group(of: "abort") == "SESSIONS SUBCOMMANDS:", "\(help)")
            #expect(help.contains("\n  abort, stop-run "), "stop-run is abort's alias: \(help)")
            #expect(group(of: "render") == "PLUGINS SUBCOMMANDS:", "\(help)")
            #expect(group(of: "extension") == "SETUP SUBCOMMANDS:", "\(help)")
            #expect(help.contains("`abort` stops a session's run (also `stop-run`); `stop` stops the daemon."), "\(help)")
        }
    }

    /// Each shell's script is generated; bash's completes a session name by asking the running
    /// daemon (the real completion function, run by bash), and zsh's and fish's make the same
    /// call, which answers in their formats. With the daemon down, no completions and no error.
    @Test func completionScriptsCompleteSessionNamesThroughTheDaemon() async throws {
        try await SessionHome.with { s in
            var scripts: [String: String] = [:]
            for shell in ["bash", "zsh", "fish"] {
                let generated = try await s.run("--generate-completion-script", shell)
                #expect(generated.status == 0 && generated.stdout.contains("---completion send -- positional@0"), "\(shell): \(generated)")
                scripts[shell] = generated.stdout
            }
            try await s.start()
            for name in ["api", "apps", "web"] { _ = try await s.new(name: name) }

            let bash = try #require(scripts["bash"])
            let function = try #require(
                bash.split(separator: "\n").first { $0.hasPrefix("complete ") && $0.hasSuffix(" pi-relayd") }?
                    .split(separator: " ").dropLast().last.map(String.init), "\(bash)")
            let file = s.home.scratch + "/pi-relayd.bash"
            try bash.write(toFile: file, atomically: true, encoding: .utf8)
            func complete(_ line: String) async throws -> [String] {
                let words = line.split(separator: " ", omittingEmptySubsequences: false).map { TerminalCommand.quoted(String($0)) }
                let driver = """
                    shopt -s extglob; source \(TerminalCommand.quoted(file))
                    COMP_LINE=\(TerminalCommand.quoted(line)); COMP_POINT=${#COMP_LINE}
                    COMP_WORDS=(\(words.joined(separator: " "))); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                    \(function) pi-relayd "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                    printf '%s\\n' "${COMPREPLY[@]}"
                    """
                let shell = try SpawnedProcess(
                    "/bin/bash", ["-c", driver], environment: s.home.environment(["PATH": BuildProducts.directory + ":/usr/bin:/bin"]),
                    stdoutPath: s.home.scratch + "/bash.out", stderrPath: s.home.scratch + "/bash.err")
                let exit = await shell.wait(timeout: .seconds(30))
                #expect(exit == .exited(0) && shell.stderr.isEmpty, "\(shell.stderr)")
                return shell.stdout.split(separator: "\n").map(String.init).sorted()
            }
            #expect(try await complete("pi-relayd send ap") == ["api", "apps"])
            #expect(try await complete("pi-relayd abort w") == ["web"])
            #expect(try await complete("pi-relayd stream ") == ["api", "apps", "web"])

            // zsh and fish call the same hook; it answers in their formats.
            for (shell, expected) in [("zsh", "api\napps\n \n"), ("fish", "api\napps\n")] {
                let hook = try await s.home.cli(extra: ["SAP_SHELL": shell]).run(
                    ["---completion", "send", "--", "positional@0", "2", "2", "pi-relayd", "send", "ap"])
                #expect(hook.status == 0 && hook.stdout == expected, "\(shell): \(hook)")
            }

            _ = try await s.plain("stop")
            let down = try await s.run("---completion", "send", "--", "positional@0", "2", "2", "pi-relayd", "send", "ap")
            #expect(down.status == 0 && down.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && down.stderr.isEmpty, "\(down)")
            #expect(try await complete("pi-relayd send ap") == [])
        }
    }
}
