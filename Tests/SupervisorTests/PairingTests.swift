import Foundation
import Testing

@testable import Supervisor

/// Pairing codes and the offers waiting for a claim, with a made-up clock.
@Suite struct PairingTests {
    let start = ContinuousClock.now

    func offer(_ code: String = "K7QM3XPA9T", confirm: Bool = true) -> PairingOffer {
        PairingOffer(messenger: "discord", code: code, expires: start + .seconds(600), confirm: confirm)
    }

    @Test func codesAreTenUnambiguousCharactersAndDiffer() {
        var seen = Set<String>()
        for _ in 0..<200 {
            let code = PairingCode.make()
            #expect(code.count == 10)
            #expect(code.allSatisfy { "ABCDEFGHJKMNPQRSTUVWXYZ23456789".contains($0) })
            seen.insert(code)
        }
        #expect(seen.count == 200)
    }

    @Test func matchingIgnoresCaseSpacesAndDashesOnly() {
        #expect(PairingCode.matches("K7QM3XPA9T", "K7QM3XPA9T"))
        #expect(PairingCode.matches("k7qm-3xpa 9t", "K7QM3XPA9T"))
        #expect(!PairingCode.matches("K7QM3XPA9", "K7QM3XPA9T"))
        #expect(!PairingCode.matches("K7QM3XPA9TT", "K7QM3XPA9T"))
        #expect(!PairingCode.matches("K7QM3XPA9U", "K7QM3XPA9T"))
        #expect(!PairingCode.matches("", "K7QM3XPA9T"))
    }

    @Test func theRightCodeInADMIsAcceptedOnce() {
        var offers = PairingOffers()
        let outcome1 = offers.add(offer())
        #expect(outcome1 == nil)
        let outcome2 = offers.claim(messenger: "discord", typed: "k7qm3xpa9t", inDM: true)
        #expect(outcome2 == .accepted(offer()))
        let outcome3 = offers.claim(messenger: "discord", typed: "K7QM3XPA9T", inDM: true)
        #expect(outcome3 == .rejected(voided: nil))
    }

    @Test func theFifthWrongTryVoidsTheCode() {
        var offers = PairingOffers()
        _ = offers.add(offer())
        for _ in 1...4 {
            let outcome = offers.claim(messenger: "discord", typed: "WRONGWRONG", inDM: true)
            #expect(outcome == .rejected(voided: nil))
        }
        var voided = offer()
        voided.wrongTries = 5
        let outcome5 = offers.claim(messenger: "discord", typed: "WRONGWRONG", inDM: true)
        #expect(outcome5 == .rejected(voided: voided))
        let outcome6 = offers.claim(messenger: "discord", typed: "K7QM3XPA9T", inDM: true)
        #expect(outcome6 == .rejected(voided: nil))
    }

    @Test func aCodeOfAnotherMessengerIsNoCode() {
        var offers = PairingOffers()
        _ = offers.add(offer())
        let outcome7 = offers.claim(messenger: "telegram", typed: "K7QM3XPA9T", inDM: true)
        #expect(outcome7 == .rejected(voided: nil))
        #expect(offers.open["discord"]?.wrongTries == 0)
    }

    @Test func outsideADMTheRightCodeIsVoidedAndAWrongOneIsNotCounted() {
        var offers = PairingOffers()
        _ = offers.add(offer())
        let outcome8 = offers.claim(messenger: "discord", typed: "WRONGWRONG", inDM: false)
        #expect(outcome8 == .refusedOutsideDM(voided: nil))
        #expect(offers.open["discord"]?.wrongTries == 0)
        let outcome9 = offers.claim(messenger: "discord", typed: "K7QM3XPA9T", inDM: false)
        #expect(outcome9 == .refusedOutsideDM(voided: offer()))
        #expect(offers.open.isEmpty)
    }

    @Test func codesExpireAtTheirTime() {
        var offers = PairingOffers()
        _ = offers.add(offer())
        let early = offers.expire(now: start + .seconds(599))
        #expect(early.isEmpty)
        let outcome10 = offers.expire(now: start + .seconds(600))
        #expect(outcome10 == [offer()])
        let outcome11 = offers.claim(messenger: "discord", typed: "K7QM3XPA9T", inDM: true)
        #expect(outcome11 == .rejected(voided: nil))
    }

    @Test func aNewCodeReplacesTheOldAndAWithdrawnOneIsGone() {
        var offers = PairingOffers()
        _ = offers.add(offer())
        let outcome12 = offers.add(offer("ABCDEFGH23"))
        #expect(outcome12 == offer())
        let outcome13 = offers.withdraw(messenger: "discord", code: "K7QM3XPA9T")
        #expect(outcome13 == nil)
        let outcome14 = offers.withdraw(messenger: "discord", code: "ABCDEFGH23")
        #expect(outcome14 == offer("ABCDEFGH23"))
        let outcome15 = offers.claim(messenger: "discord", typed: "ABCDEFGH23", inDM: true)
        #expect(outcome15 == .rejected(voided: nil))
    }

    @Test func pairedUsersAreSavedPrivatelyAndReadBack() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/paired-users.json"
        var users = PairedUsers(path: path)
        let added = users.add(PairedUser(messenger: "discord", id: "42", name: "alice", pairedAt: "2026-11-23T18:00:00Z"))
        let again = users.add(PairedUser(messenger: "discord", id: "42", name: "alice", pairedAt: "2026-11-23T18:01:00Z"))
        let other = users.add(PairedUser(messenger: "telegram", id: "42", name: "al", pairedAt: "2026-11-23T18:02:00Z"))
        #expect(added && !again && other)
        try users.save()
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        var read = try PairedUsers.load(path: path)
        #expect(read.users == users.users)
        #expect(read.ids(messenger: "discord") == ["42"])
        let removed = read.remove(id: "42", messenger: "telegram")
        #expect(removed.map(\.messenger) == ["telegram"])
        #expect(read.ids(messenger: "telegram").isEmpty)
        #expect(try PairedUsers.load(path: folder.path + "/none.json").users.isEmpty)
        try folder.write("bad.json", "{not json", mode: 0o600)
        #expect(throws: PairedUsers.LoadError.self) { try PairedUsers.load(path: folder.path + "/bad.json") }
    }
}
