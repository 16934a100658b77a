import PiRelaySDK
import Testing

@testable import Supervisor

/// What the extension says of chat prompts that will not run, and what the chats are told.
@Suite struct TerminalPromptNewsTests {
    @Test func promptsDroppedAtAReloadAreToldToSendAgain() throws {
        let news = try #require(
            TerminalPromptNews(type: "prompts_dropped", ["type": "prompts_dropped", "reason": "shutdown", "texts": ["fix the build", "then push"]]))
        #expect(news.kind == .dropped && news.reason == .shutdown && news.noticeKind == "warning")
        #expect(
            news.text
                == "The terminal's pi is reloading or quitting (/reload, /quit): 2 chat prompts not sent: “fix the build”, “then push”. Send again what should still run."
        )
    }

    @Test func aSteerSentAsAFollowUpWhileAnApprovalWaitsIsSaid() throws {
        let news = try #require(TerminalPromptNews(type: "prompts_delivered", ["reason": "gate", "texts": ["and then tag it"]]))
        #expect(news.kind == .delivered && news.reason == .gate && news.noticeKind == "info")
        #expect(
            news.text
                == "An approval is pending: 1 steer went to pi as a follow-up instead, so the calls already approved still run: “and then tag it”."
        )
    }

    @Test func aSteerPiStillHasAtAStopIsSaidToRunWithTheNextPrompt() throws {
        let news = try #require(TerminalPromptNews(type: "prompts_delivered", ["reason": "stop", "texts": ["also delete the build folder"]]))
        #expect(news.kind == .delivered && news.reason == .stop && news.noticeKind == "info")
        #expect(
            news.text
                == "The run was stopped, but pi keeps 1 chat prompt it had already queued, and runs it with the next prompt: “also delete the build folder”."
        )
    }

    @Test func anUnknownReasonOrNoPromptIsNoNews() {
        #expect(TerminalPromptNews(type: "prompts_dropped", ["reason": "later", "texts": ["x"]]) == nil)
        #expect(TerminalPromptNews(type: "prompts_dropped", ["reason": "shutdown", "texts": []]) == nil)
    }
}
