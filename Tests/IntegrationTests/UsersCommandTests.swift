import Foundation
import PiRelaySDK
import Testing

/// `pi-relayd users` with no daemon running: the list merges config.yaml, the environment and
/// the paired users; `revoke` edits the file itself and refuses what it cannot remove.
@Suite struct UsersCommandTests {
    @Test func listAndRevokeWithoutADaemon() async throws {
        try await TestHome.with(config: "discord:\n  allowedUsers: [\"111\"]\n") { home in
            let paired = """
                {"version":1,"users":[{"messenger":"discord","id":"222","name":"bob","pairedAt":"2026-11-23T18:00:00Z"},\
                {"messenger":"telegram","id":"333","name":"carol","pairedAt":"2026-11-23T18:01:00Z"}]}

                """
            try FileManager.default.createDirectory(atPath: home.path + "/state", withIntermediateDirectories: true)
            try home.writeFile("state/paired-users.json", paired, mode: 0o600)
            let listed = try await home.cli(extra: ["TELEGRAM_ALLOWED_USERS": "444"]).run(["users", "--json"])
            #expect(listed.status == 0, "\(listed)")
            let rows = try listed.json()["users"]?.arrayValue ?? []
            let seen = Set(rows.map { "\($0["messenger"]?.stringValue ?? ""):\($0["id"]?.stringValue ?? ""):\($0["source"]?.stringValue ?? "")" })
            #expect(seen == ["discord:111:config", "discord:222:paired", "telegram:333:paired", "telegram:444:config"], "\(rows)")

            let revoked = try await home.run("users", "revoke", "333")
            #expect(revoked.status == 0 && revoked.stdout.contains("revoked carol (333) on telegram"), "\(revoked)")
            #expect(!home.read("state/paired-users.json").contains("333"))
            #expect(home.read("state/paired-users.json").contains("222"))
            let unknown = try await home.run("users", "revoke", "333")
            #expect(unknown.status == 1 && unknown.stderr.contains("no paired user 333"), "\(unknown)")
            let text = try await home.run("users")
            #expect(text.status == 0 && text.stdout.contains("discord  222 bob  (paired, since 2026-11-23T18:00:00Z)"), "\(text)")
        }
    }
}
