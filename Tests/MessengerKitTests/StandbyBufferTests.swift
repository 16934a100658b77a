import MessengerKit
import Testing

/// A standing-by messenger keeps what it received for a minute, and gives it all up, oldest
/// first, when its machine takes the bot.
@Suite struct StandbyBufferTests {
    let start = ContinuousClock.now

    @Test func theRecentMessagesAreGivenUpOnceInOrder() {
        var buffer = StandbyBuffer<String>()
        buffer.hold("a", at: start)
        buffer.hold("b", at: start + .seconds(30))
        buffer.hold("c", at: start + .seconds(50))
        #expect(buffer.count == 3)
        // At 70 s, "a" (70 s old) is past the minute; "b" and "c" are not.
        #expect(buffer.release(at: start + .seconds(70)) == ["b", "c"])
        #expect(buffer.count == 0 && buffer.release(at: start + .seconds(71)).isEmpty)
    }

    @Test func oldMessagesAreDroppedAsNewOnesComeAndTheCountIsCapped() {
        var buffer = StandbyBuffer<Int>()
        buffer.hold(0, at: start)
        buffer.hold(1, at: start + .seconds(61))
        #expect(buffer.count == 1, "the first, 61 s old, was dropped")
        for n in 2...(StandbyBuffer<Int>.capacity + 5) { buffer.hold(n, at: start + .seconds(62)) }
        let released = buffer.release(at: start + .seconds(62))
        #expect(released.count == StandbyBuffer<Int>.capacity && released.first == 6 && released.last == StandbyBuffer<Int>.capacity + 5)
    }
}
