import Testing

@testable import PiRelaySDK

/// A messenger's allowlist: configured ids plus the supervisor's list, replaced whole.
@Suite struct AllowlistTests {
    @Test func theSupervisorsListAddsAndRevokesButNeverTheConfiguredOnes() {
        let list = Allowlist(configured: ["1"], supervisor: ["1", "2"])
        #expect(list.permits("1") && list.permits("2") && !list.permits("3"))
        #expect(list.count == 2)
        list.replace(with: AllowlistParams(users: ["3"]))
        #expect(list.permits("1") && !list.permits("2") && list.permits("3"))
        list.replace(with: AllowlistParams(users: []))
        #expect(list.permits("1") && list.count == 1)
        #expect(Allowlist(configured: []).count == 0)
    }
}
