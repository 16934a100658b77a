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

    /// A `/compact` mid-run ended the run: pi kept the steer in its queue, or had taken it into
    /// the run it aborted, which the compaction left out.
    @Test func aSteerACompactionEndedTheRunOfIsSaidToRunNextOrToBeLost() throws {
        let kept = try #require(TerminalPromptNews(type: "prompts_delivered", ["reason": "compaction", "texts": ["also run the linter"]]))
        #expect(kept.noticeKind == "info")
        #expect(
            kept.text
                == "A compaction ended the run, but pi keeps 1 chat prompt it had already queued, and runs it with the next prompt: “also run the linter”."
        )
        let lost = try #require(TerminalPromptNews(type: "prompts_dropped", ["reason": "compaction", "texts": ["also run the linter"]]))
        #expect(lost.noticeKind == "warning")
        #expect(
            lost.text
                == "A compaction ended the run after pi had taken 1 chat prompt into it; the compaction left it out, so it does not run: “also run the linter”. Send again what should still run."
        )
    }

    @Test func anUnknownReasonOrNoPromptIsNoNews() {
        #expect(TerminalPromptNews(type: "prompts_dropped", ["reason": "later", "texts": ["x"]]) == nil)
        #expect(TerminalPromptNews(type: "prompts_dropped", ["reason": "shutdown", "texts": []]) == nil)
    }
}
