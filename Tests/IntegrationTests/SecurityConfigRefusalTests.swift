import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A config.yaml holding a secret, or a .env, that group or others can read is refused: the
/// daemon does not start (so no plugin runs), says which file and how to fix it, and does not
/// repeat the secret. The same files when private start fine, so the refusal is about the mode.
@Suite struct SecurityConfigRefusalTests {
    static let secret = "MTIzNDU2Nzg5.SecurityRefusalToken.zyx-987"

    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let contents: String
        let openMode: mode_t
        var testDescription: String { "\(file) mode \(String(openMode, radix: 8))" }
    }

    static let cases: [Case] = [
        Case(file: "config.yaml", contents: "discord:\n  token: \(secret)\n", openMode: 0o644),
        Case(file: "config.yaml", contents: "pi:\n  env:\n    ANTHROPIC_API_KEY: \(secret)\n", openMode: 0o640),
        Case(file: ".env", contents: "DISCORD_BOT_TOKEN=\(secret)\n", openMode: 0o644),
        Case(file: ".env", contents: "ANTHROPIC_API_KEY=\(secret)\n", openMode: 0o604),
    ]

    @Test(arguments: cases)
    func secretsOthersCanReadAreRefused(_ c: Case) async throws {
        try await TestHome.with { home in
            try home.writeFile("plugins/marker", DiscoveryTests.markingScript(home, "marker"), mode: 0o755)
            try home.writeFile(c.file, c.contents, mode: c.openMode)

            let refused = try await home.cli.run(["start", "--foreground"], timeout: .seconds(30))
            #expect(refused.status != 0, "\(refused)")
            let output = refused.stdout + refused.stderr
            #expect(output.contains("refusing to read \(home.path)/\(c.file)"), "\(refused)")
            #expect(output.contains("chmod 600 \(home.path)/\(c.file)"), "the message gives the fix: \(refused)")
            #expect(!output.contains(Self.secret), "the secret was repeated: \(refused)")
            #expect(!ControlSocket.accepts(home.socketPath))
            #expect(!FileManager.default.fileExists(atPath: home.scratch + "/ran-marker"), "a plugin ran")
            for log in ((try? FileManager.default.contentsOfDirectory(atPath: home.logsDir)) ?? []) {
                #expect(!home.read("logs/" + log).contains(Self.secret), "logs/\(log) holds the secret")
            }

            // Private, the same file is accepted.
            #expect(chmod(home.path + "/" + c.file, 0o600) == 0)
            let daemon = try await home.startDaemon()
            try await waitUntil("the marker plugin ran once the file was private") {
                FileManager.default.fileExists(atPath: home.scratch + "/ran-marker")
            }
            #expect(daemon.process.poll() == nil)
        }
    }

    @Test(
        .enabled(if: geteuid() == 0, "needs root: only root can give a config file to another user (CI runs as root)"),
        arguments: ["config.yaml", ".env"])
    func filesOfAnotherUserAreRefusedWhateverTheyHold(_ file: String) async throws {
        try await TestHome.with { home in
            try home.writeFile("plugins/marker", DiscoveryTests.markingScript(home, "marker"), mode: 0o755)
            try home.writeFile(file, file == ".env" ? "A=1\n" : "logs:\n  level: debug\n", mode: 0o600)
            #expect(chown(home.path + "/" + file, 65534, 65534) == 0)

            let refused = try await home.cli.run(["start", "--foreground"], timeout: .seconds(30))
            #expect(refused.status != 0, "\(refused)")
            #expect(
                (refused.stdout + refused.stderr).contains("refusing to read \(home.path)/\(file): it belongs to another user (uid 65534"),
                "\(refused)")
            #expect(!FileManager.default.fileExists(atPath: home.scratch + "/ran-marker"), "a plugin ran")
        }
    }
}
