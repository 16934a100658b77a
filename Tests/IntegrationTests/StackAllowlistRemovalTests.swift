import Foundation
import PiRelaySDK
import Testing

/// A user the owner takes out of an allowlist (config.yaml, or `<MESSENGER>_ALLOWED_USERS`)
/// while pi-relayd is stopped is treated as `users revoke` treats a paired one: at the next
/// start their direct messages stop watching sessions and their schedules go. Without it, their
/// DM kept getting every run's output and approval question, and their schedules kept prompting.
@Suite(.serialized) struct StackAllowlistRemovalTests {
    static func chat(_ channel: String, user: String, dm: Bool) -> JSONValue {
        ["channel": .string(channel), "user": .string(user), "userName": .string("user \(user)"), "dm": .bool(dm), "mentioned": true]
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aUserTakenOutOfTheAllowlistLosesTheirChatsAndSchedules() async throws {
        try await E2EChatHome.with { chat in
            var config = chat.config()
            config.extra = ["schedules:", "  minimumIntervalSeconds: 2"]
            let first = try await chat.start(config, environment: ["FAKE_MESSENGER_ALLOWED_USERS": "77"])
            _ = try await chat.newBoundSession("work")
            for (channel, user) in [("d77", "77"), ("d42", E2EChatHome.user)] {
                let used = try await chat.inject(
                    "chat.command", ["chat": Self.chat(channel, user: user, dm: true), "name": "use", "args": ["session": "work"]])
                #expect(used["text"] == "Watching work.", "\(used)")
            }
            for user in ["77", E2EChatHome.user] {
                let added = try await chat.inject(
                    "chat.message",
                    [
                        "chat": Self.chat(E2EChatHome.channel, user: user, dm: false), "messageId": .string(UUID().uuidString),
                        "text": .string("/schedule every 1h tz=UTC report for \(user)"), "attachments": [],
                    ])
                #expect(added["reply"]?["text"]?.stringValue?.hasPrefix("Scheduled #") == true, "\(added)")
            }
            let stopped = await first.terminate()
            #expect(stopped.exit != nil && !stopped.forced)

            // 77 is allowed no more: the environment no longer names them.
            _ = try await chat.start(config)
            try await waitUntil("the start drops what 77 had", timeout: .seconds(30)) {
                chat.home.read("logs/pi-relayd.log").contains(
                    "pairing: 77 is no longer allowed on fake-messenger (not in its allowlist, not paired): 1 of their chat(s) stopped "
                        + "watching sessions, 1 schedule(s) of theirs removed")
            }
            let keys = try JSONValue.parse(chat.home.read("state/bindings.json"))["bindings"]?.arrayValue?.compactMap { $0["key"]?.stringValue }
            #expect(keys == ["fake-messenger:c1", "fake-messenger:d42"], "\(chat.home.read("state/bindings.json"))")
            let schedules = try await chat.run(["schedule", "list", "--json"]).json().arrayValue ?? []
            #expect(schedules.map { $0["prompt"]?.stringValue } == ["report for \(E2EChatHome.user)"], "\(schedules)")

            // A run's answer reaches the chats still allowed, and not 77's.
            _ = try await chat.say("hello after the change")
            _ = try await chat.waitForFinal(1)
            try await waitUntil("42's DM gets the answer too", timeout: .seconds(30)) {
                chat.posts("final").contains { $0["target"]?["channel"] == "d42" }
            }
            #expect(!chat.posts().contains { $0["target"]?["channel"] == "d77" }, "\(chat.posts())")
        }
    }
}
