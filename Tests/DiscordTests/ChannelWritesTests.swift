import Testing

@testable import DiscordPlugin

/// The channel's write allowance: one write at a time, and a live view or a notice leaves the
/// last request of the bucket's window (as Discord's last answer counted it) to a question or a
/// final.
@Suite struct ChannelWritesTests {
    @Test func aLiveViewLeavesTheWindowsLastRequestForAFinal() {
        let writes = ChannelWrites()
        let key = ChannelWrites.key("edit", channel: "42")
        #expect(writes.wait(chat: key, now: 100, keeping: 1) == 0, "nothing known: it goes")
        writes.take(chat: key, now: 100)
        #expect(writes.wait(chat: key, now: 100, keeping: 0) == ChannelWrites.recheck, "one write at a time")
        writes.done(chat: key, remaining: 1, resetAt: 103)
        #expect(writes.wait(chat: key, now: 100, keeping: 1) == 3, "the live view waits for the window's end")
        #expect(writes.wait(chat: key, now: 100, keeping: 0) == 0, "the final takes the last request")
        #expect(writes.wait(chat: key, now: 103.5, keeping: 1) == 0, "a new window")
        writes.done(chat: key, remaining: 2, resetAt: 108)
        #expect(writes.wait(chat: key, now: 104, keeping: 1) == 0, "two left: one for the live view, one spare")
        #expect(writes.wait(chat: ChannelWrites.key("post", channel: "42"), now: 104, keeping: 1) == 0, "posts are a bucket of their own")
    }
}
