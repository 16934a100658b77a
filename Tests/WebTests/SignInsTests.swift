import FoundationEssentials
import PiRelaySDK
import Testing

@testable import WebPlugin

/// An open page hears when a sign-in may have ended (`SignIns.endings`) and then checks its own:
/// a sign-out or a new allowlist that revokes its user ends it, anything else leaves it.
@Suite struct SignInsTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sign-ins-" + UUID().uuidString).path

    @Test(.timeLimit(.minutes(1))) func aPageHearsASignOutAndARevocation() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let signIns = SignIns(store: StateStore(directory: folder))
        let allowlist = Allowlist(configured: [], supervisor: ["ann", "bob"])
        let ann = await signIns.start(user: "ann")
        let bob = await signIns.start(user: "bob")
        var endings = await signIns.endings().makeAsyncIterator()

        // Bob signs out: the page hears it; Ann's sign-in still holds, Bob's is gone.
        await signIns.end(token: bob)
        #expect(await endings.next() != nil)
        #expect(await signIns.user(token: ann, allowlist: allowlist) == "ann")
        #expect(await signIns.user(token: bob, allowlist: allowlist) == nil)

        // Ann is revoked (`chat.allowlist` without her): the page hears it and her cookie ends.
        allowlist.replace(with: AllowlistParams(users: ["bob"]))
        await signIns.mayHaveEnded()
        #expect(await endings.next() != nil)
        #expect(await signIns.user(token: ann, allowlist: allowlist) == nil)
        #expect(await signIns.expiry(token: ann) == nil)
    }

    @Test func aCookieRunsOutAtItsExpiry() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let signIns = SignIns(store: StateStore(directory: folder))
        let allowlist = Allowlist(configured: ["ann"])
        let started = Date(timeIntervalSinceNow: -SignIns.lifetime + 60)
        let token = await signIns.start(user: "ann", now: started)
        let expires = try #require(await signIns.expiry(token: token))
        #expect(abs(expires.timeIntervalSinceNow - 60) < 5)
        #expect(await signIns.user(token: token, allowlist: allowlist) == "ann")
        #expect(await signIns.user(token: token, allowlist: allowlist, now: expires) == nil)
    }
}
