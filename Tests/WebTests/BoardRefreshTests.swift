import PiRelaySDK
import Testing

@testable import WebPlugin

/// When the board asks `SessionWatch` for a fresh sessions list: every second only while a page
/// shows the list, and at once when a row a session page shows changes.
@Suite struct BoardRefreshTests {
    @Test func onlyAPageWithoutASessionWantsTheListEverySecond() async {
        let board = Board()
        #expect(!board.showsList)
        let page = board.open()
        #expect(board.showsList)
        board.watch(page.id, session: "s1")
        #expect(!board.showsList)
        let list = board.open()
        #expect(board.showsList)
        board.close(list.id)
        #expect(!board.showsList)
    }

    /// Without the wakeup the second `next()` never returns, and the time limit fails the test.
    @Test(.timeLimit(.minutes(1))) func aPostOnAShownSessionAsksForTheListAtOnce() async {
        await expectWakeup { board in
            await board.add(["id": "f1", "kind": "final", "runId": "r1", "html": "done"], id: "f1", session: "s1")
        }
    }

    @Test(.timeLimit(.minutes(1))) func aRunStartingOnAShownSessionAsksForTheListAtOnce() async {
        await expectWakeup { board in board.runStarted("s1") }
    }

    /// A page shows `s1`; `change` must then ask for the list.
    private func expectWakeup(after change: (Board) async -> Void) async {
        let board = Board()
        var wakeups = board.wakeups.makeAsyncIterator()
        let page = board.open()
        // Opening a page asks for the list.
        _ = await wakeups.next()
        board.watch(page.id, session: "s1")
        await change(board)
        #expect(await wakeups.next() != nil)
    }
}
