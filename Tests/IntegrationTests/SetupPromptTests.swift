import Foundation
import Testing

/// `pi-relayd setup` asks for a token on the terminal with echo off: abandoned with Ctrl-C, the
/// terminal is left as it was, not silent until `stty echo`. The terminal is a pseudo-terminal
/// Python's `pty` makes (Swift's Glibc module does not carry posix_openpt).
@Suite struct SetupPromptTests {
    static let script = #"""
        import json, os, pty, signal, subprocess, sys, termios, time
        master, slave = pty.openpty()
        echo = lambda: bool(termios.tcgetattr(slave)[3] & termios.ECHO)
        before = echo()
        err = open(sys.argv[2], "wb")
        child = subprocess.Popen([sys.argv[1], "setup", "discord"], stdin=slave, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.time() + 30
        while time.time() < deadline and b"token from" not in open(sys.argv[2], "rb").read():
            time.sleep(0.05)
        while time.time() < deadline and echo():
            time.sleep(0.05)
        during = echo()
        child.send_signal(signal.SIGINT)
        child.wait(timeout=30)
        print(json.dumps({"before": before, "during": during, "after": echo()}))
        """#

    @Test(.timeLimit(.minutes(2)))
    func ctrlCAtTheTokenPromptLeavesTheTerminalEchoing() async throws {
        try await TestHome.with { home in
            try home.linkBuiltPlugin("pi-relay-discord", as: "discord")
            var environment = home.environment()
            environment["DISCORD_BOT_TOKEN"] = nil
            let run = try SpawnedProcess(
                "/usr/bin/env", ["python3", "-c", Self.script, BuildProducts.relayd, home.scratch + "/setup.err"], environment: environment,
                stdoutPath: home.scratch + "/pty.out", stderrPath: home.scratch + "/pty.err")
            #expect(await run.wait(timeout: .seconds(90)) == .exited(0), "\(run.stderr)")
            let seen = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Bool]
            #expect(seen?["before"] == true && seen?["during"] == false, "\(run.stdout) \(run.stderr)")
            #expect(seen?["after"] == true, "the terminal was left without echo: \(run.stdout)")
        }
    }
}
