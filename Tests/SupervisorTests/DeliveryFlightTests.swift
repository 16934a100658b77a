import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor

/// Which deliveries go to an instance, and which one is poison: a delivery that crashes every
/// instance must not take the plugin into its crash-loop limit with the others behind it.
@Suite struct DeliveryFlightTests {
    let t0 = ContinuousClock.now

    @Test func aDeliveryAloneDuringTwoCrashesIsPoisonAndOneCrashIsNot() {
        var flight = DeliveryFlight()
        let none = flight.welcomed([String](), id: { $0 }, at: t0)
        let passed = flight.mayPass("a", at: t0)
        let firstCrash = flight.instanceEnded(crashed: true)
        #expect(none.isEmpty && passed && firstCrash == nil)
        #expect(flight.crashes(of: "a") == 1)
        let replayed = flight.welcomed(["a"], id: { $0 }, at: t0)
        let secondCrash = flight.instanceEnded(crashed: true)
        #expect(replayed == ["a"] && secondCrash == "a")
        #expect(flight.crashes(of: "a") == 0, "poison no longer counts")
    }

    @Test func aRequestedStopCountsNothing() {
        var flight = DeliveryFlight()
        for _ in 0..<3 {
            let sent = flight.welcomed(["a", "b"], id: { $0 }, at: t0)
            let poison = flight.instanceEnded(crashed: false)
            #expect(sent == ["a", "b"] && poison == nil)
        }
        #expect(flight.crashes(of: "a") == 0 && !flight.oneAtATime)
    }

    @Test func twoCrashesWithSeveralInFlightSendThemOneAtATimeUntilThePoisonIsNamed() {
        var flight = DeliveryFlight()
        for _ in 0..<2 {
            let sent = flight.welcomed(["a", "poison", "c"], id: { $0 }, at: t0)
            let poison = flight.instanceEnded(crashed: true)
            #expect(sent == ["a", "poison", "c"] && poison == nil, "three in flight: none is named")
        }
        #expect(flight.oneAtATime)
        let first = flight.welcomed(["a", "poison", "c"], id: { $0 }, at: t0)
        let newOne = flight.mayPass("d", at: t0)
        #expect(first == ["a"] && !newOne, "one at a time, a new delivery waits its turn")
        let second = flight.acked("a", waiting: ["poison", "c", "d"], id: { $0 }, at: t0)
        let poison = flight.instanceEnded(crashed: true)
        #expect(second == ["poison"] && poison == "poison")
        // "c" still has two crashes: one at a time until it is acked, then the rest at once.
        let third = flight.welcomed(["c", "d"], id: { $0 }, at: t0)
        let rest = flight.acked("c", waiting: ["d"], id: { $0 }, at: t0)
        #expect(third == ["c"] && rest == ["d"] && !flight.oneAtATime)
        let later = flight.mayPass("e", at: t0)
        let none = flight.acked("d", waiting: ["e"], id: { $0 }, at: t0)
        #expect(later && none.isEmpty, "outside one at a time nothing waits for an ack")
    }

    @Test func oneSentAloneAndNeverAckedIsPassedOverAndACrashThenGoesToWhicheverIsAloneLater() {
        var flight = DeliveryFlight(patience: .seconds(60))
        for _ in 0..<2 {
            _ = flight.welcomed(["stuck", "b", "c"], id: { $0 }, at: t0)
            _ = flight.instanceEnded(crashed: true)
        }
        let first = flight.welcomed(["stuck", "b", "c"], id: { $0 }, at: t0)
        let early = flight.tick(waiting: ["stuck", "b", "c"], id: { $0 }, at: t0 + .seconds(59))
        let late = flight.tick(waiting: ["stuck", "b", "c"], id: { $0 }, at: t0 + .seconds(60))
        #expect(first == ["stuck"] && early.isEmpty && late == ["b"])
        // Either may have crashed it: neither is named, and the stalled one goes last from now.
        let unnamed = flight.instanceEnded(crashed: true)
        #expect(unnamed == nil && flight.crashes(of: "stuck") == 3 && flight.crashes(of: "b") == 3)
        let next = flight.welcomed(["stuck", "b", "c"], id: { $0 }, at: t0)
        let named = flight.instanceEnded(crashed: true)
        #expect(next == ["b"] && named == "b", "b alone: named")
        // Had "stuck" been the poison (a crash a minute after it came), the others go first and
        // it is named once it is tried alone.
        var other = DeliveryFlight(patience: .seconds(60))
        for _ in 0..<2 {
            _ = other.welcomed(["slow", "b"], id: { $0 }, at: t0)
            _ = other.instanceEnded(crashed: true)
        }
        _ = other.welcomed(["slow", "b"], id: { $0 }, at: t0)
        _ = other.tick(waiting: ["slow", "b"], id: { $0 }, at: t0 + .seconds(60))
        let neither = other.instanceEnded(crashed: true)
        let before = other.welcomed(["slow", "b"], id: { $0 }, at: t0)
        let then = other.acked("b", waiting: ["slow"], id: { $0 }, at: t0)
        let slow = other.instanceEnded(crashed: true)
        #expect(neither == nil && before == ["b"] && then == ["slow"] && slow == "slow")
        // Two that crash a minute and a half after they come: once deferred, each is waited for
        // four times the patience, so it is alone when it crashes.
        var two = DeliveryFlight(patience: .seconds(60))
        for _ in 0..<2 {
            _ = two.welcomed(["s1", "s2"], id: { $0 }, at: t0)
            _ = two.instanceEnded(crashed: true)
        }
        // Each is passed over once, and a crash finds both in flight: both are deferred.
        for _ in 0..<2 {
            _ = two.welcomed(["s1", "s2"], id: { $0 }, at: t0)
            _ = two.tick(waiting: ["s1", "s2"], id: { $0 }, at: t0 + .seconds(60))
            let neither = two.instanceEnded(crashed: true)
            #expect(neither == nil)
        }
        let s1 = two.welcomed(["s1", "s2"], id: { $0 }, at: t0)
        let held = two.tick(waiting: ["s1", "s2"], id: { $0 }, at: t0 + .seconds(90))
        let namedFirst = two.instanceEnded(crashed: true)
        let s2 = two.welcomed(["s2"], id: { $0 }, at: t0)
        let namedSecond = two.instanceEnded(crashed: true)
        #expect(s1 == ["s1"] && held.isEmpty && namedFirst == "s1" && s2 == ["s2"] && namedSecond == "s2")
    }

    @Test func aRequestInFlightBesideItMeansNoDeliveryIsNamed() {
        var flight = DeliveryFlight()
        for _ in 0..<2 {
            _ = flight.welcomed(["a"], id: { $0 }, at: t0)
            let poison = flight.instanceEnded(crashed: true, otherWork: true)
            #expect(poison == nil)
        }
        #expect(flight.crashes(of: "a") == 2)
        _ = flight.welcomed(["a"], id: { $0 }, at: t0)
        let alone = flight.instanceEnded(crashed: true)
        #expect(alone == "a")
    }

    @Test func aCrashWithNothingInFlightCountsNothing() {
        var flight = DeliveryFlight()
        _ = flight.welcomed(["a"], id: { $0 }, at: t0)
        _ = flight.acked("a", waiting: [String](), id: { $0 }, at: t0)
        let poison = flight.instanceEnded(crashed: true)
        #expect(poison == nil && !flight.oneAtATime && flight.crashes(of: "a") == 0)
    }

    @Test func nothingIsSentWhileNoInstanceRuns() {
        var flight = DeliveryFlight()
        let before = flight.mayPass("a", at: t0)
        _ = flight.welcomed(["a"], id: { $0 }, at: t0)
        _ = flight.instanceEnded(crashed: true)
        let after = flight.mayPass("b", at: t0)
        #expect(!before && !after)
    }

    @Test func aSetAsideDeliveryIsKeptBesideTheOutboxAndLeavesIt() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/p.jsonl"
        var outbox = Outbox(path: path, limit: 10)
        for n in 0..<3 { try outbox.add(.init(id: "id-\(n)", method: "chat.post", params: ["n": JSONValue(n)])) }
        let kept = outbox.setAside("id-1", why: "crashed it", now: 100)
        let again = outbox.setAside("id-1", why: "again", now: 101)
        #expect(kept && !again, "an id no longer held is not set aside twice")
        #expect(outbox.entries.map(\.id) == ["id-0", "id-2"])
        #expect(outbox.setAside == 1 && outbox.setAsideSince == 100)
        #expect(Outbox(path: path, limit: 10).entries.map(\.id) == ["id-0", "id-2"], "a reload does not bring it back")
        #expect(outbox.setAsidePath == folder.path + "/p.set-aside.jsonl")
        let text = try String(contentsOfFile: outbox.setAsidePath, encoding: .utf8)
        let record = try JSONValue.parse(String(text.dropLast()))
        #expect(record["id"] == "id-1" && record["params"]?["n"] == 1 && record["why"] == "crashed it", "\(record)")
        var info = stat()
        #expect(stat(outbox.setAsidePath, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    /// The copy cannot be written (here a folder where the file should be, as tests run as
    /// root): the delivery still leaves the outbox, or it would crash the plugin again, and
    /// the outbox says why it was not kept.
    @Test func aSetAsideCopyThatCannotBeWrittenIsSaidAndTheDeliveryStillLeaves() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/p.jsonl"
        var outbox = Outbox(path: path, limit: 10)
        try outbox.add(.init(id: "id-0", method: "chat.post", params: [:]))
        try FileManager.default.createDirectory(atPath: outbox.setAsidePath, withIntermediateDirectories: true)
        let kept = outbox.setAside("id-0", why: "crashed it", now: 100)
        #expect(!kept && outbox.entries.isEmpty && outbox.setAside == 1)
        #expect(
            outbox.setAsideError?.contains("could not be kept: cannot open \(outbox.setAsidePath)") == true,
            "\(String(describing: outbox.setAsideError))")
        #expect(Outbox(path: path, limit: 10).entries.isEmpty, "the journal forgot it too")
    }
}
