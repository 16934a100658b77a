import FoundationEssentials
import Testing

@testable import Supervisor

/// Who answers in a shared room, decided by each machine alone from what the user wrote, on a
/// clock the tests move by hand.
@Suite struct SharedRoomRuleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let room = "telegram:-1001"

    func decide(_ rule: inout SharedRoomRule, _ text: String, picked: String?, after seconds: Double = 0) -> (String?, SharedRoomVerdict) {
        let (pick, verdict) = rule.decide(ChatCommand.parse(text), room: room, picked: picked, now: start.addingTimeInterval(seconds))
        return (pick, verdict)
    }

    @Test func useMachineSessionPicksThatMachineOnEveryDaemonAndOnlyItBinds() {
        var laptop = SharedRoomRule(machine: "laptop"), desktop = SharedRoomRule(machine: "desktop")
        for text in ["/use laptop api", "/use laptop/api"] {
            let (lp, lv) = decide(&laptop, text, picked: nil)
            #expect(lp == "laptop" && lv == .run(.use("api")))
            let (dp, dv) = decide(&desktop, text, picked: nil)
            #expect(dp == "laptop" && dv == .silent)
        }
    }

    @Test func thePickedMachineAloneAnswersPromptsAndCommands() {
        var laptop = SharedRoomRule(machine: "laptop"), desktop = SharedRoomRule(machine: "desktop")
        for text in ["fix the tests", "/stop", "/status", "/help", "/new ~/src/api"] {
            #expect(decide(&laptop, text, picked: "laptop") == (nil, .handle), "\(text)")
            #expect(decide(&desktop, text, picked: "laptop") == (nil, .silent), "\(text)")
        }
    }

    @Test func everyMachineListsItsSessionsAndAnswersItsOwnButtons() {
        var desktop = SharedRoomRule(machine: "desktop")
        #expect(decide(&desktop, "/sessions", picked: "laptop") == (nil, .handle))
        #expect(decide(&desktop, "/use", picked: "laptop") == (nil, .handle), "a bare /use lists")
        #expect(desktop.decide(.action("qa:s:q:yes"), room: room, picked: "laptop", now: start) == (nil, .handle))
    }

    @Test func aBareUseOrToBindsAndSendsNothingAndAsksWhichMachine() {
        var laptop = SharedRoomRule(machine: "laptop")
        #expect(decide(&laptop, "/use dup", picked: "desktop") == (nil, .whichMachine(session: "dup", example: "/use laptop dup")))
        #expect(decide(&laptop, "/to dup run it", picked: "laptop") == (nil, .whichMachine(session: "dup", example: "/to laptop/dup …")))
    }

    @Test func toMachineSessionReachesThatMachineAndKeepsThePick() {
        var laptop = SharedRoomRule(machine: "laptop"), desktop = SharedRoomRule(machine: "desktop")
        #expect(decide(&laptop, "/to laptop/api run the tests", picked: "desktop") == (nil, .run(.to(session: "api", text: "run the tests"))))
        #expect(decide(&desktop, "/to laptop/api run the tests", picked: "desktop") == (nil, .silent))
    }

    @Test func newWithAMachinePicksItAndStartsThere() {
        var laptop = SharedRoomRule(machine: "laptop"), desktop = SharedRoomRule(machine: "desktop")
        #expect(decide(&laptop, "/new laptop ~/src/api api", picked: "desktop") == ("laptop", .run(.new(cwd: "~/src/api", name: "api"))))
        #expect(decide(&laptop, "/new laptop", picked: nil) == ("laptop", .run(.new(cwd: nil, name: nil))))
        #expect(decide(&desktop, "/new laptop ~/src/api", picked: "desktop") == ("laptop", .silent))
        #expect(decide(&desktop, "/new /srv/web", picked: "desktop") == (nil, .handle), "a folder: the picked machine's")
    }

    @Test func withNoPickEachMachineSaysHowToPickOncePerTenMinutes() {
        var laptop = SharedRoomRule(machine: "laptop")
        let (_, first) = decide(&laptop, "hello", picked: nil)
        guard case .hint(let text) = first else {
            Issue.record("expected a hint, got \(first)")
            return
        }
        #expect(text.contains("/use laptop SESSION"))
        #expect(decide(&laptop, "hello again", picked: nil, after: 599) == (nil, .silent))
        #expect(decide(&laptop, "/stop", picked: nil, after: 300) == (nil, .silent))
        if case .hint = decide(&laptop, "still there?", picked: nil, after: 601).1 {} else { Issue.record("no hint after ten minutes") }
    }
}
