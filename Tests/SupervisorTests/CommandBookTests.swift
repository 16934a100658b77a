import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor

/// The commands in flight on a session's pi, as bookkeeping: ids, who waits for which response,
/// and the turn of the commands whose failure comes back without an id.
@Suite struct CommandBookTests {
    struct Gone: Error {}

    @Test func aResponseGoesToItsCommandsWaiterAndPiGoingAwayFailsTheRest() async throws {
        var book = CommandBook()
        let first = book.send(.getState)
        let second = book.send(.prompt(message: "hi", streamingBehavior: .followUp))
        #expect([first, second] == ["r1", "r2"])
        let got = try await withCheckedThrowingContinuation { (waiter: CommandBook.Waiter) in
            book.wait(first, waiter)
            let (match, handed) = book.received(PiResponse(id: first, command: "get_state", success: true))
            #expect(match == .settles(id: first, type: "get_state"))
            handed?.resume(returning: PiResponse(id: first, command: "get_state", success: true))
        }
        #expect(got.id == first)
        let expired = book.expire("r9")
        #expect(expired == nil)
        do {
            _ = try await withCheckedThrowingContinuation { (waiter: CommandBook.Waiter) in
                book.wait(second, waiter)
                for left in book.drain() { left.resume(throwing: Gone()) }
            }
            Issue.record("the prompt's waiter was not failed")
        } catch is Gone {}
        let late = book.received(PiResponse(id: second, command: "prompt", success: true))
        #expect(late.waiter == nil)
    }

    /// A prompt refused after it was accepted can be sent again: its words are kept until then,
    /// and handed out once.
    @Test func aPromptsWordsAreKeptForItsSecondAnswer() {
        var book = CommandBook()
        let state = book.send(.getState)
        let prompt = book.send(.prompt(message: "second", images: [["type": "image"]], streamingBehavior: .followUp))
        #expect(book.takePrompt(state) == nil, "only prompts are kept")
        let settled = book.received(PiResponse(id: prompt, command: "prompt", success: true))
        #expect(settled.match == .settles(id: prompt, type: "prompt"))
        let late = book.received(PiResponse(id: prompt, command: "prompt", success: false, error: "Agent is already processing a prompt."))
        #expect(late.match == .promptRejectedLate(id: prompt, error: "Agent is already processing a prompt."))
        let kept = book.takePrompt(prompt)
        #expect(kept?.message == "second" && kept?.images.count == 1)
        #expect(book.takePrompt(prompt) == nil, "handed out once")
        for n in 0...CommandBook.promptsKept { _ = book.send(.prompt(message: "p\(n)", streamingBehavior: .followUp)) }
        #expect(book.takePrompt("r3") == nil, "the oldest is forgotten past the bound")
        #expect(book.takePrompt("r4")?.message == "p1")
    }

    @Test func theIDlessTurnGoesToTheNextInLineAndAWaiterMayLeave() async throws {
        var book = CommandBook()
        let taken = book.takeIDlessTurn()
        let again = book.takeIDlessTurn()
        #expect(taken && !again)
        let key = UUID()
        try await withCheckedThrowingContinuation { (waiting: CommandBook.TurnWaiter) in
            book.queueForIDlessTurn(key, waiting)
            let stranger = book.leaveIDlessTurn(UUID())
            #expect(stranger == nil)
            // The holder is done: the first in line gets the turn.
            book.passIDlessTurn()?.resume()
        }
        let gone = book.leaveIDlessTurn(key)
        #expect(gone == nil, "it holds the turn now; it is no longer in line")
        let next = book.passIDlessTurn()
        #expect(next == nil, "nobody waits: the turn is free")
        let free = book.takeIDlessTurn()
        #expect(free)
    }
}
