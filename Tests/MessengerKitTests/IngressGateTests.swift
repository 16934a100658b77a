import MessengerKit
import PiRelaySDK
import Testing

/// A messenger sharing its bot token through a federation takes the bot's updates only while it
/// holds the lease, is told so again within 15 s, and hears from pi-relayd within 10 s.
@Suite struct IngressGateTests {
    let start = ContinuousClock.now

    @Test func aMessengerNoFederationManagesAlwaysTakesItsTraffic() {
        let contact = SupervisorContact()
        let gate = IngressGate(welcome: nil, contact: contact)
        #expect(!gate.managed && gate.standBy(now: start + .seconds(3600)) == nil)
    }

    @Test func theHolderTakesTrafficWhileToldAgainAndWhilePiRelaydSpeaks() {
        let contact = SupervisorContact()
        contact.heard(at: start)
        let gate = IngressGate(welcome: IngressChange(messenger: "telegram", active: false, reason: "waiting"), contact: contact, now: start)
        #expect(gate.standBy(now: start) == "waiting")
        #expect(gate.apply(IngressChange(messenger: "telegram", active: true, epoch: 3, cursor: 41), now: start))
        #expect(gate.standBy(now: start) == nil && gate.cursor == 41)
        contact.heard(at: start + .seconds(8))
        #expect(!gate.apply(IngressChange(messenger: "telegram", active: true, epoch: 3, cursor: 41), now: start + .seconds(8)), "said again")
        #expect(gate.standBy(now: start + .seconds(17)) == nil)
        // pi-relayd silent for 10 s: stand by.
        #expect(gate.standBy(now: start + .seconds(18))?.contains("not been heard from") == true)
        // Heard again, but the lease not said again for 15 s: stand by.
        contact.heard(at: start + .seconds(22))
        #expect(gate.standBy(now: start + .seconds(23))?.contains("has not confirmed") == true)
        #expect(gate.apply(IngressChange(messenger: "telegram", active: false, reason: "desktop holds the lease"), now: start + .seconds(23)))
        #expect(gate.standBy(now: start + .seconds(23)) == "desktop holds the lease" && gate.cursor == nil)
    }
}
