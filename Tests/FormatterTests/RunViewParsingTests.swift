import PiRelaySDK
import Testing

@testable import FormatterPlugin

@Suite struct RunViewParsingTests {
    @Test func itemsAreReadAndUnknownKindsSkipped() throws {
        let run = try RunView(
            rendering: RunFixture.run(
                [
                    RunFixture.text("a\r\nb\rc"),
                    ["kind": "image", "url": "x"],
                    RunFixture.thinking("hm"),
                    RunFixture.tools([RunFixture.call("ls", ["path": "."])]),
                    RunFixture.notice("retry-failed", "gave up"),
                ], done: false, stopReason: nil))
        #expect(run.items.count == 4)
        guard case .text(let text) = run.items[0] else { Issue.record("first item is not text"); return }
        #expect(text == "a\nb\nc")
        guard case .notice(let kind, let noticeText) = run.items[3] else { Issue.record("last item is not a notice"); return }
        #expect(kind == .retryFailed && noticeText == "gave up")
        #expect(!run.done && run.sessionName == "api" && run.runID == "r7")
    }

    @Test func missingOrNullItemsAreAnEmptyRun() throws {
        #expect(try RunView(rendering: ["runId": "x"]).items.isEmpty)
        #expect(try RunView(rendering: ["items": nil]).items.isEmpty)
        #expect(throws: RemoteError.self) { try RunView(rendering: ["items": "no"]) }
        #expect(throws: RemoteError.self) { try RunView(rendering: "no") }
    }

    @Test func toolCallDefaults() {
        let call = RunView.ToolCall(json: ["name": "bash"])
        #expect(call.done && !call.isError && call.output.isEmpty && call.args == [:])
    }

    @Test func settledPrefixStopsBeforeLinesThatMayBeATable() {
        #expect(RunRenderer.settledPrefix("one\ntwo\nthr") == "one\ntwo\n")
        #expect(RunRenderer.settledPrefix("no line end yet") == "")
        #expect(RunRenderer.settledPrefix("intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n") == "intro\n\n")
        #expect(RunRenderer.settledPrefix("intro\n| maybe a header\n") == "intro\n")
        // Inside a fence a pipe is just code.
        #expect(RunRenderer.settledPrefix("```\na | b\n") == "```\na | b\n")
    }

    @Test func heldBackStopsAtTheLastWhitespace() {
        #expect(RunRenderer.heldBack("Here is sk-ant-api0") == "Here is ")
        #expect(RunRenderer.heldBack("line\nnext") == "line\n")
        #expect(RunRenderer.heldBack("word") == "")
    }

    @Test func diffStatsAcrossFilesAndExitStatuses() {
        let diff = """
            diff --git a/x.swift b/x.swift
            --- a/x.swift
            +++ b/x.swift
            @@ -1 +1,2 @@
            -old
            +new
            +more
            diff --git a/y.swift b/y.swift
            --- a/y.swift
            +++ b/y.swift
            @@ -3,2 +3 @@
             keep
            -gone
            """
        let stat = DiffStat(diff: diff)
        #expect(stat.added == 2 && stat.removed == 2)
        #expect(ExitStatus(output: "Command exited with code 127") == .code(127))
        #expect(ExitStatus(output: "exit code 1 ... later: Exit code: 3") == .code(3))
        #expect(ExitStatus(output: "error: Command timed out after 30 seconds") == .timedOut)
        #expect(ExitStatus(output: "permission denied") == nil)
    }

    @Test func inlineCodeAndElision() {
        #expect(InlineCode.wrap("plain") == "`plain`")
        #expect(InlineCode.wrap("`edge") == "`` `edge ``")
        #expect(InlineCode.wrap("a``b") == "``` a``b ```")
        #expect("abcdefghij".elidingMiddle(to: 5) == "ab…ij")
        #expect("short".elidingMiddle(to: 80) == "short")
        #expect("日本語のテキスト".elidingMiddle(to: 5) == "日本…スト")
    }
}
