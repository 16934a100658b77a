import Foundation
import Testing

/// A group config.yaml binds to a session that cannot start (its folder is gone): the group is
/// told why when someone writes there, not "not bound", and `status` shows it as a problem.
@Suite struct StackUnstartedChannelTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aConfiguredChatWhoseSessionCannotStartSaysWhy() async throws {
        try await TelegramStack.with { stack in
            let group = "-1001009990001"
            let gone = stack.home.root + "/moved-away"
            try await stack.start(section: ["requireMention: false", "chats: [{id: \"\(group)\", cwd: \"\(gone)\", name: team}]"])
            let status = try await waitFor("the problem in status", timeout: .seconds(30)) { () -> String? in
                let out = try await stack.cli(["status"]).stdout
                return out.contains("PROBLEM: channel telegram:\(group) from config.yaml") ? out : nil
            }
            #expect(status.contains(gone), "\(status)")
            try await stack.say("hello team", in: group)
            let reply = try await stack.waitForBotMessage(in: group, containing: "config.yaml binds this channel to a session, but")
            #expect(reply.first?["text"]?.stringValue?.contains(gone) == true, "\(reply)")
        }
    }
}
