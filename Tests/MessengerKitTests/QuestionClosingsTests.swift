import Logging
import MessengerKit
import Testing

@Suite struct QuestionClosingsTests {
    @Test(.timeLimit(.minutes(1))) func eachClosingIsShownOnceAFailureForNowIsTriedAgainAndAGoneMessageIsGivenUp() async throws {
        let cards = FakeCards()
        let edits = ClosingEdits()
        await edits.fail(1, with: [ClosingEdits.Busy()])
        await edits.fail(2, with: [ClosingEdits.Gone()])
        let loop = Task {
            await cards.showClosings(logger: Logger(label: "test"), retry: .milliseconds(10), givesUp: { $0 is ClosingEdits.Gone }) { card, text in
                try await edits.edit(card, text)
            }
        }
        defer { loop.cancel() }
        await cards.close(1, text: "answered: yes")
        await cards.close(2, text: "timed out")
        await cards.close(3, text: "answered: no")
        for _ in 0..<500 where await cards.forgotten.count < 3 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await edits.shown == ["1: answered: yes", "3: answered: no"], "2's message is gone: given up, not tried forever")
        #expect(await cards.forgotten == [1, 2, 3])
    }
}
