import PiRelaySDK
import Testing

/// Which write a streaming run makes next, and what a plugin restarted with an edit in doubt does.
@Suite struct LiveRunTests {
    @Test func theTailIsSentThenEditedAndAFinishedChunkTakesItsMessage() {
        var run = LiveRun<Int>()
        let taken1 = run.take(rev: 1, chunks: [], tail: "Hel")
        #expect(taken1)
        #expect(run.nextWrite() == .send(index: 0, text: "Hel"))
        run.sent(0, id: 10, text: "Hel")
        #expect(run.nextWrite() == nil)
        let taken2 = run.take(rev: 1, chunks: [], tail: "Hello")
        #expect(!taken2, "a stale view is ignored")
        let taken3 = run.take(rev: 2, chunks: ["Hello world"], tail: "and more")
        #expect(taken3)
        #expect(run.nextWrite() == .edit(index: 0, messageID: 10, text: "Hello world"))
        run.editing(0, to: "Hello world")
        run.edited(0, to: "Hello world")
        #expect(run.nextWrite() == .send(index: 1, text: "and more"))
    }

    @Test func anEmptyTailIsNeverSent() {
        var run = LiveRun<Int>()
        let taken4 = run.take(rev: 1, chunks: [], tail: "  \n")
        #expect(taken4)
        #expect(run.nextWrite() == nil)
    }

    /// Killed after Telegram took an edit and before it was confirmed: the same view again is
    /// not written (Telegram would refuse it as not modified), a longer one is.
    @Test func anEditInDoubtIsNotRepeatedWhileStreaming() {
        var first = LiveRun<Int>()
        _ = first.take(rev: 1, chunks: [], tail: "one")
        first.sent(0, id: 7, text: "one")
        _ = first.take(rev: 2, chunks: [], tail: "one two")
        first.editing(0, to: "one two")

        var restarted = LiveRun<Int>(messages: first.messages)
        let taken5 = restarted.take(rev: 2, chunks: [], tail: "one two")
        #expect(taken5)
        #expect(restarted.nextWrite() == nil)
        let taken6 = restarted.take(rev: 3, chunks: [], tail: "one two three")
        #expect(taken6)
        #expect(restarted.nextWrite() == .edit(index: 0, messageID: 7, text: "one two three"))
    }

    /// The final answer cannot know whether the edit in doubt landed: it writes it again rather
    /// than risk leaving the answer unshown.
    @Test func theFinalWritesAnEditInDoubtAgain() {
        var message = LiveRun<Int>.Message(id: 7, text: "one", pending: "one two")
        #expect(!message.certainlyShows("one two"))
        #expect(!message.certainlyShows("one"))
        #expect(message.mayShow("one two"))
        message.pending = nil
        #expect(message.certainlyShows("one"))
    }

    /// An edit the messenger could only make as a new message: that one is the run's from now on.
    @Test func anEditPostedAnewTakesTheNewID() {
        var run = LiveRun<String>()
        _ = run.take(rev: 1, chunks: [], tail: "a")
        run.sent(0, id: "1.0", text: "a")
        run.editing(0, to: "a b")
        run.edited(0, to: "a b", id: "2.0")
        #expect(run.messages == [LiveRun<String>.Message(id: "2.0", text: "a b")])
    }

    @Test func aFinishedRunWritesNothingMore() {
        var run = LiveRun<Int>()
        _ = run.take(rev: 1, chunks: [], tail: "text")
        run.finished = true
        #expect(run.nextWrite() == nil)
        let taken7 = run.take(rev: 2, chunks: [], tail: "more")
        #expect(!taken7)
    }
}
