import MessengerKit
import Testing

@Suite struct SendLineTests {
    /// Tickets in the order the line lets them go, each leaving as it goes.
    static func drain(_ line: inout SendLine, chat: String, now: Double) -> [Int] {
        var order: [Int] = []
        while let ticket = line.next(chat: chat, now: now) {
            order.append(ticket)
            line.leave(chat: chat, ticket: ticket)
        }
        return order
    }

    @Test func theMostUrgentGoesFirstAndEqualsInTheOrderTheyCame() {
        var line = SendLine()
        let notice = line.arrive(chat: "42", priority: .notice, now: 0).ticket
        let live = line.arrive(chat: "42", priority: .live, now: 0.1).ticket
        let question = line.arrive(chat: "42", priority: .answer, now: 0.2).ticket
        let final = line.arrive(chat: "42", priority: .answer, now: 0.3).ticket
        #expect(Self.drain(&line, chat: "42", now: 0.5) == [question, final, live, notice])
    }

    @Test func chatsHaveLinesOfTheirOwn() {
        var line = SendLine()
        let first = line.arrive(chat: "1", priority: .notice, now: 0).ticket
        let second = line.arrive(chat: "2", priority: .answer, now: 0).ticket
        #expect(line.next(chat: "1", now: 0) == first)
        #expect(line.next(chat: "2", now: 0) == second)
        #expect(line.count(chat: "1") == 1 && line.count(chat: "2") == 1)
    }

    @Test func aNewerEditOfTheSameMessageTakesTheOlderOnesPlace() {
        var line = SendLine()
        let older = line.arrive(chat: "42", priority: .notice, replaces: "42:7", now: 0)
        let other = line.arrive(chat: "42", priority: .notice, replaces: "42:8", now: 0)
        let newer = line.arrive(chat: "42", priority: .notice, replaces: "42:7", now: 1)
        #expect(older.superseded == nil && other.superseded == nil)
        #expect(newer.superseded == older.ticket)
        #expect(Self.drain(&line, chat: "42", now: 1) == [other.ticket, newer.ticket])
    }

    @Test func aWriteThatWaitedLongRanksHigherSoNoticesGoWhileARunStreams() {
        var line = SendLine(aging: 5)
        let notice = line.arrive(chat: "42", priority: .notice, now: 0).ticket
        // A live view comes for every write the budget allows.
        let early = line.arrive(chat: "42", priority: .live, now: 4).ticket
        #expect(line.next(chat: "42", now: 4) == early)
        line.leave(chat: "42", ticket: early)
        _ = line.arrive(chat: "42", priority: .live, now: 5).ticket
        #expect(line.next(chat: "42", now: 5) == notice, "5 s of waiting: the notice ranks as a live view, and came first")
        let question = line.arrive(chat: "42", priority: .answer, now: 5).ticket
        #expect(line.next(chat: "42", now: 5) == question, "a question still goes first")
    }

    @Test func leavingBeforeItsTurnTakesAWriteOutOfTheLine() {
        var line = SendLine()
        let first = line.arrive(chat: "42", priority: .answer, now: 0).ticket
        let second = line.arrive(chat: "42", priority: .answer, now: 0).ticket
        line.leave(chat: "42", ticket: first)
        #expect(Self.drain(&line, chat: "42", now: 0) == [second])
        #expect(line.count(chat: "42") == 0)
    }
}
