import Foundation
import PiRelaySDK
import Testing

/// `pi-relayd service install | status | uninstall`, run as the built binary against a fake
/// systemctl (Tests/Fakes/systemctl) and a pi installed the way nvm installs it.
@Suite struct ServiceCommandTests {
    /// What a service test runs with: HOME in the scratch folder, a `pi` in a folder of its own
    /// (as nvm's `~/.nvm/versions/node/vX/bin`), and on PATH the fake systemctl or none.
    struct Setup {
        let home: TestHome
        let userHome: String
        let piFolder: String
        let systemctlLog: String
        var unitPath: String { userHome + "/.config/systemd/user/pi-relayd.service" }

        init(_ home: TestHome) throws {
            self.home = home
            userHome = home.scratch + "/user"
            piFolder = userHome + "/.nvm/versions/node/v24.1.0/bin"
            systemctlLog = home.scratch + "/systemctl.log"
            try FileManager.default.createDirectory(atPath: piFolder, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(
                atPath: piFolder + "/pi", contents: Data("#!/bin/sh\nexit 0\n".utf8), attributes: [.posixPermissions: 0o755])
        }

        func cli(systemctl: Bool, noBus: Bool = false) -> CLI {
            var path = [piFolder, "/usr/bin", "/bin"]
            // The machine's own systemctl (in /usr/bin) must not be found: the fake goes first,
            // and without it /usr/bin is left out.
            if systemctl { path.insert(RepoPaths.root + "/Tests/Fakes/systemctl", at: 1) } else { path = [piFolder, home.scratch] }
            var extra = ["HOME": userHome, "PATH": path.joined(separator: ":"), "FAKE_SYSTEMCTL_LOG": systemctlLog]
            if noBus { extra["FAKE_SYSTEMCTL_NO_BUS"] = "1" }
            var cli = home.cli(extra: extra)
            cli = CLI(environment: cli.environment.filter { $0.key != "XDG_CONFIG_HOME" }, scratch: cli.scratch)
            return cli
        }

        var systemctlCalls: [String] {
            ((try? String(contentsOfFile: systemctlLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        /// The unit as `install` must write it for this setup.
        func expectedUnit(path: String) -> String {
            """
            # Written by `pi-relayd service install`; `pi-relayd service uninstall` removes it.
            [Unit]
            Description=pi-relayd: pi coding-agent sessions in chat apps
            Documentation=man:pi-relayd(1)

            [Service]
            Type=simple
            ExecStart=\(BuildProducts.relayd) start --foreground
            Environment=PATH=\(path)
            Environment=PI_RELAYD_HOME=\(home.path)
            Restart=on-failure
            RestartSec=5
            # SIGTERM to the daemon alone, which stops its pi sessions and plugins in order; whatever
            # is left when TimeoutStopSec runs out is killed.
            KillMode=mixed
            TimeoutStopSec=30

            [Install]
            WantedBy=default.target

            """
        }
    }

    @Test func installWritesTheUnitAndStartsItWhenTheUserManagerAnswers() async throws {
        try await TestHome.with(gated: false) { home in
            let setup = try Setup(home)
            let cli = setup.cli(systemctl: true)
            let installed = try await cli.run(["service", "install"])
            #expect(installed.status == 0, "\(installed)")
            let unit = try String(contentsOfFile: setup.unitPath, encoding: .utf8)
            let path = [setup.piFolder, RepoPaths.root + "/Tests/Fakes/systemctl", "/usr/bin", "/bin"].joined(separator: ":")
            #expect(unit == setup.expectedUnit(path: path))
            #expect(
                setup.systemctlCalls == [
                    "--user show-environment", "--user daemon-reload", "--user enable --now pi-relayd.service",
                ])
            #expect(installed.stdout.contains("with pi from \(setup.piFolder)/pi"), "\(installed.stdout)")
            #expect(installed.stdout.contains("ran: systemctl --user daemon-reload; systemctl --user enable --now pi-relayd.service"))
            #expect(installed.stdout.contains("loginctl enable-linger") || installed.stdout.contains("lingering: on"))

            let status = try await cli.run(["service", "status", "--json"]).json()
            #expect(status["installed"] == true, "\(status)")
            #expect(status["executable"]?.stringValue == BuildProducts.relayd)
            #expect(status["thisExecutable"] == true)
            #expect(status["active"]?.stringValue == "active")

            // Installing again rewrites the same unit: safe to repeat after moving pi.
            #expect(try await cli.run(["service", "install"]).status == 0)
            #expect(try String(contentsOfFile: setup.unitPath, encoding: .utf8) == unit)

            let removed = try await cli.run(["service", "uninstall"])
            #expect(removed.status == 0, "\(removed)")
            #expect(!FileManager.default.fileExists(atPath: setup.unitPath))
            #expect(setup.systemctlCalls.suffix(2) == ["--user disable --now pi-relayd.service", "--user daemon-reload"])
            let after = try await cli.run(["service", "status"])
            #expect(after.status == 1)
            #expect(after.stdout.contains("not installed"), "\(after.stdout)")
            let again = try await cli.run(["service", "uninstall"])
            #expect(again.status == 0 && again.stdout.contains("nothing to remove"), "\(again)")
        }
    }

    @Test func withoutAUserManagerTheUnitIsWrittenAndTheCommandsAreShown() async throws {
        try await TestHome.with(gated: false) { home in
            let setup = try Setup(home)
            for (cli, why) in [
                (setup.cli(systemctl: true, noBus: true), "reaches no service manager"),
                (setup.cli(systemctl: false), "no systemctl on PATH"),
            ] {
                let installed = try await cli.run(["service", "install"])
                #expect(installed.status == 0, "\(installed)")
                #expect(installed.stdout.contains(why), "\(installed.stdout)")
                #expect(
                    installed.stdout.contains("\n    systemctl --user daemon-reload\n    systemctl --user enable --now pi-relayd.service\n"),
                    "\(installed.stdout)")
                #expect(FileManager.default.fileExists(atPath: setup.unitPath))
                let report = try await cli.run(["service", "install", "--json"]).json()
                #expect(report["ran"] == [])
                #expect(report["pi"]?.stringValue == setup.piFolder + "/pi")
            }
            // Only the check that the user manager answers ran, never a command that changes it.
            #expect(Set(setup.systemctlCalls) == ["--user show-environment"])

            // A manager that cannot be reached: the files go, and what is left to do is shown.
            let removed = try await setup.cli(systemctl: false).run(["service", "uninstall"])
            #expect(removed.status == 0, "\(removed)")
            #expect(!FileManager.default.fileExists(atPath: setup.unitPath))
            #expect(removed.stdout.contains("systemctl --user daemon-reload"), "\(removed.stdout)")
        }
    }

    @Test func aPiThatIsNotOnPathIsNamedAndTheUnitStillWritten() async throws {
        try await TestHome.with(gated: false) { home in
            let setup = try Setup(home)
            try FileManager.default.removeItem(atPath: setup.piFolder + "/pi")
            let installed = try await setup.cli(systemctl: false).run(["service", "install", "--no-start"])
            #expect(installed.status == 0, "\(installed)")
            #expect(installed.stdout.contains("pi (pi) is not on your PATH"), "\(installed.stdout)")
            #expect(installed.stdout.contains("nothing was started (--no-start)"), "\(installed.stdout)")
            #expect(setup.systemctlCalls.isEmpty)
        }
    }

    @Test func aDaemonStartedByHandIsLeftRunningAndTheServiceOnlyEnabled() async throws {
        try await TestHome.with { home in
            let setup = try Setup(home)
            _ = try await home.startDaemon()
            let installed = try await setup.cli(systemctl: true).run(["service", "install"])
            #expect(installed.status == 0, "\(installed)")
            // Started now, the service would find the home locked and fail every few seconds.
            #expect(
                setup.systemctlCalls == ["--user show-environment", "--user daemon-reload", "--user enable pi-relayd.service"])
            #expect(installed.stdout.contains("\n    pi-relayd stop\n    systemctl --user start pi-relayd.service\n"), "\(installed.stdout)")
            #expect(ControlSocket.accepts(home.socketPath), "the running daemon is left alone")
        }
    }

    /// `pi-relayd restart` of a daemon the service runs goes through systemd: stopped and started
    /// from the shell, the daemon exited cleanly (which systemd does not restart) and the new
    /// one ran outside the service, with no journal and no restart after a crash.
    @Test func restartOfTheServicesDaemonGoesThroughSystemd() async throws {
        try await TestHome.with { home in
            let setup = try Setup(home)
            let cli = setup.cli(systemctl: true)
            #expect(try await cli.run(["service", "install"]).status == 0)
            // The fake systemctl's start does nothing: the service's daemon, started as systemd would.
            let first = try await cli.run(["start"])
            #expect(first.status == 0, "\(first)")
            let before = try String(contentsOfFile: home.path + "/state/pi-relayd.pid", encoding: .utf8)
            let restarted = try await cli.run(["restart"])
            #expect(restarted.status == 0 && restarted.stdout.contains("restarted by its systemd user service"), "\(restarted)")
            #expect(setup.systemctlCalls.contains("--user restart pi-relayd.service"), "\(setup.systemctlCalls)")
            let after = try String(contentsOfFile: home.path + "/state/pi-relayd.pid", encoding: .utf8)
            #expect(before != after && ControlSocket.accepts(home.socketPath), "a new daemon answers")
            // Another home's daemon is not the service's: restarted by hand, the service left alone.
            let other = home.scratch + "/other-home"
            var environment = cli.environment
            environment["PI_RELAYD_HOME"] = other
            let elsewhere = CLI(environment: environment, scratch: cli.scratch)
            #expect(try await elsewhere.run(["start"]).status == 0)
            let calls = setup.systemctlCalls.count
            let mine = try await elsewhere.run(["restart"])
            #expect(mine.status == 0 && mine.stdout.contains("pi-relayd restarted (pid"), "\(mine)")
            #expect(!setup.systemctlCalls.dropFirst(calls).contains("--user restart pi-relayd.service"), "\(setup.systemctlCalls)")
            #expect(try await elsewhere.run(["stop"]).status == 0)
            #expect(try await cli.run(["stop"]).status == 0)
        }
    }

    /// systemd's own check of the unit, where systemd-analyze is installed (not on a minimal CI
    /// image). It needs a runtime folder for a user manager, not a running one.
    @Test(.enabled(if: ExecutableLookup.find("systemd-analyze") != nil))
    func systemdAcceptsTheUnit() async throws {
        try await TestHome.with(gated: false) { home in
            let setup = try Setup(home)
            #expect(try await setup.cli(systemctl: false).run(["service", "install", "--no-start"]).status == 0)
            let runtime = home.scratch + "/runtime"
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let verify = try SpawnedProcess(
                ExecutableLookup.find("systemd-analyze")!, ["--user", "--man=no", "verify", setup.unitPath],
                environment: ["PATH": "/usr/bin:/bin", "HOME": setup.userHome, "XDG_RUNTIME_DIR": runtime],
                stdoutPath: home.scratch + "/verify.out", stderrPath: home.scratch + "/verify.err")
            let exit = await verify.wait(timeout: .seconds(60))
            #expect(exit == .exited(0), "\(verify.stderr)")
            // systemd-analyze reports a bad setting and still exits 0: any output is a finding.
            #expect(verify.stdout.isEmpty && verify.stderr.isEmpty, "\(verify.stdout)\(verify.stderr)")
        }
    }
}
