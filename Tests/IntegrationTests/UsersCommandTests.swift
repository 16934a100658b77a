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

            // Carol's DM, Bob's DM, a group; her schedules (in her DM, and one in the group saved
            // with her id) go with her, Bob's and the terminal's stay.
            let binding = { (key: String, channel: String, user: String?) in
                #"{"key":"\#(key)","messenger":"\#(key.split(separator: ":")[0])","channel":"\#(channel)","sessionId":"s1","since":"2026-11-23T18:00:00Z""#
                    + (user.map { #","user":"\#($0)"}"# } ?? "}")
            }
            let bindings = [binding("telegram:333", "333", "333"), binding("discord:9222", "9222", "222"), binding("telegram:-100", "-100", nil)]
            try home.writeFile("state/bindings.json", #"{"version":1,"bindings":["# + bindings.joined(separator: ",") + "]}\n", mode: 0o600)
            let schedule = { (number: Int, by: String, user: String?) in
                #"{"number":\#(number),"sessionID":"s1","prompt":"p","rule":"every 3600","label":"every 1h","zone":"UTC","missed":"run","#
                    + #""next":"2026-11-23T19:00:00Z","createdAt":"2026-11-23T18:00:00Z","createdBy":"\#(by)","runs":0"#
                    + (user.map { #","createdByUser":"\#($0)"}"# } ?? "}")
            }
            let schedules = [
                schedule(1, "telegram:333", nil), schedule(2, "telegram:-100", "333"), schedule(3, "discord:9222", "222"),
                schedule(4, "terminal", nil),
            ]
            try home.writeFile("state/schedules.json", #"{"version":1,"schedules":["# + schedules.joined(separator: ",") + "]}\n", mode: 0o600)

            let revoked = try await home.run("users", "revoke", "333")
            #expect(revoked.status == 0 && revoked.stdout.contains("revoked carol (333) on telegram"), "\(revoked)")
            #expect(revoked.stdout.contains("their direct messages watch no session now (1)"), "\(revoked)")
            #expect(revoked.stdout.contains("removed the schedules they made: #1, #2"), "\(revoked)")
            #expect(!home.read("state/paired-users.json").contains("333"))
            #expect(home.read("state/paired-users.json").contains("222"))
            let left = try JSONValue.parse(home.read("state/bindings.json"))["bindings"]?.arrayValue?.compactMap { $0["key"]?.stringValue }
            #expect(left == ["discord:9222", "telegram:-100"], "\(home.read("state/bindings.json"))")
            let kept = try JSONValue.parse(home.read("state/schedules.json"))["schedules"]?.arrayValue?.compactMap { $0["number"]?.intValue }
            #expect(kept == [3, 4], "\(home.read("state/schedules.json"))")
            let unknown = try await home.run("users", "revoke", "333")
            #expect(unknown.status == 1 && unknown.stderr.contains("no paired user 333"), "\(unknown)")
            let text = try await home.run("users")
            #expect(text.status == 0 && text.stdout.contains("discord  222 bob  (paired, since 2026-11-23T18:00:00Z)"), "\(text)")
        }
    }

    /// Offline as online: a user still allowed by the environment is told of, and keeps their DM
    /// and schedules; a daemon starting (it holds the home's lock) makes the command wait rather
    /// than edit files the daemon is reading.
    @Test func revokeWithoutADaemonKeepsWhatAConfiguredUserHasAndWaitsForAStartingDaemon() async throws {
        try await TestHome.with(config: "telegram: {}\n") { home in
            let paired = #"{"version":1,"users":[{"messenger":"telegram","id":"333","name":"carol","pairedAt":"2026-11-23T18:01:00Z"}]}"#
            try FileManager.default.createDirectory(atPath: home.path + "/state", withIntermediateDirectories: true)
            try home.writeFile("state/paired-users.json", paired + "\n", mode: 0o600)
            let bindings =
                #"{"version":1,"bindings":[{"key":"telegram:333","messenger":"telegram","channel":"333","sessionId":"s1","since":"2026-11-23T18:00:00Z","user":"333"}]}"#
            try home.writeFile("state/bindings.json", bindings + "\n", mode: 0o600)

            let lock = open(home.path + "/state/pi-relayd.lock", O_RDWR | O_CREAT, 0o600)
            #expect(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
            let waiting = try await home.run("users", "revoke", "333")
            close(lock)
            #expect(waiting.status == 1 && waiting.stderr.contains("pi-relayd.lock is held"), "\(waiting)")
            #expect(home.read("state/paired-users.json").contains("333"))

            let revoked = try await home.cli(extra: ["TELEGRAM_ALLOWED_USERS": "333"]).run(["users", "revoke", "333"])
            #expect(revoked.status == 0 && revoked.stdout.contains("revoked carol (333) on telegram"), "\(revoked)")
            #expect(revoked.stdout.contains("⚠️ 333 is still allowed on telegram by config.yaml or the environment"), "\(revoked)")
            #expect(!revoked.stdout.contains("direct messages watch no session"), "\(revoked)")
            #expect(!home.read("state/paired-users.json").contains("333"))
            #expect(home.read("state/bindings.json").contains("telegram:333"))
        }
    }
}
