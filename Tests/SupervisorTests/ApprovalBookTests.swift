import Testing

@testable import Supervisor

/// The session's approval gates as pure bookkeeping: who decides first, what "for the session"
/// covers, and which terminal pi it belongs to.
@Suite struct ApprovalBookTests {
    static let once = ApprovalDecision(outcome: .approvedOnce, by: "alice")
    static let session = ApprovalDecision(outcome: .approvedForSession, by: "alice")
    static let denied = ApprovalDecision(outcome: .denied, by: "bob", reason: "bob denied it")

    @Test func aDecisionBeforeTheCallWaitsIsFoundWhenItDoes() async {
        var book = ApprovalBook()
        book.open("q1", rule: "bash:rm")
        #expect(book.decide("q1", Self.denied)?.waiter == nil)
        #expect(book.decide("q1", Self.once) == nil, "the first decision wins")
        let got = await withCheckedContinuation { waiter in
            if let decided = book.wait("q1", waiter) { waiter.resume(returning: decided) }
        }
        #expect(got == Self.denied)
        #expect(!book.isGate("q1"))
    }

    @Test func aWaitingCallIsHandedBackWithItsRule() async {
        var book = ApprovalBook()
        book.open("q1", rule: "bash:rm")
        let got = await withCheckedContinuation { waiter in
            #expect(book.wait("q1", waiter) == nil)
            let decided = book.decide("q1", Self.session)
            #expect(decided?.rule == "bash:rm")
            decided?.waiter?.resume(returning: Self.session)
        }
        #expect(got == Self.session)
        #expect(book.approvedEarlier("bash:rm"))
        #expect(book.openGates.isEmpty)
    }

    @Test func aGateThatIsGoneAbandonsTheCall() async {
        var book = ApprovalBook()
        let got = await withCheckedContinuation { waiter in
            if let decided = book.wait("q9", waiter) { waiter.resume(returning: decided) }
        }
        #expect(got.outcome == .abandoned)
    }

    @Test func approvalsForTheSessionBelongToOneTerminalPi() {
        var book = ApprovalBook()
        book.terminalAttached(pid: 100, switched: false)
        book.approveForSession("edit:*")
        book.terminalAttached(pid: 100, switched: false)
        #expect(book.approvedEarlier("edit:*"), "a /reload keeps them")
        book.terminalAttached(pid: 100, switched: true)
        #expect(!book.approvedEarlier("edit:*"), "a pi that switched here starts without them")
        book.approveForSession("edit:*")
        book.terminalAttached(pid: 200, switched: false)
        #expect(!book.approvedEarlier("edit:*"), "another pi process starts without them")
        book.approveForSession("edit:*")
        book.terminalLeft()
        #expect(!book.approvedEarlier("edit:*"))
    }

    @Test func theTerminalsDecisionsAreRememberedUpToALimit() {
        var book = ApprovalBook()
        for index in 0..<(ApprovalBook.decidedByTerminalKept + 1) { book.terminalDecided("q\(index)") }
        #expect(!book.decidedAtTerminal("q0"))
        #expect(book.decidedAtTerminal("q1"))
        #expect(book.decidedAtTerminal("q\(ApprovalBook.decidedByTerminalKept)"))
    }
}
