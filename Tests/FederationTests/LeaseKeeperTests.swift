import FederationPlugin
import Logging
import PiRelaySDK
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two machines keep one ingress lease on a real PostgreSQL, on short times (the ratios of the
/// real ones): the preferred one owns ingress, and when its supervisor goes silent (a frozen
/// daemon) it stops before the other starts, under the next epoch.
@Suite(.timeLimit(.minutes(3))) struct LeaseKeeperTests {
    final class Changes: Sendable {
        private let all = Mutex<[(machine: String, change: LeaseKeeper.Change, at: ContinuousClock.Instant)]>([])
        func add(_ machine: String, _ change: LeaseKeeper.Change) { all.withLock { $0.append((machine, change, .now)) } }
        var list: [(machine: String, change: LeaseKeeper.Change, at: ContinuousClock.Instant)] { all.withLock { $0 } }
        func first(_ machine: String, _ match: (LeaseKeeper.Change) -> Bool) -> ContinuousClock.Instant? {
            list.first { $0.machine == machine && match($0.change) }?.at
        }
    }

    final class Alive: Sendable {
        private let value = Mutex(true)
        var isAlive: Bool { value.withLock { $0 } }
        func freeze() { value.withLock { $0 = false } }
    }

    /// The ratios between the times are what the test is about, so they all stretch together.
    /// Three times the real ones' ratios at 300 ms: CI saw the NAS's keeper, among the target's
    /// other tests and their PostgreSQL on two cores, not run for more than the 0.9 s expiry, so
    /// the laptop took the lease before the NAS's fence was even noted. Under a sanitizer (make
    /// sanitize sets TSAN_OPTIONS and ASAN_OPTIONS) the target runs 5-15 times slower.
    static let scale: Int = getenv("TSAN_OPTIONS") != nil || getenv("ASAN_OPTIONS") != nil ? 8 : 3

    static let times = LeaseTimes(
        renewEvery: .milliseconds(300 * scale), expireAfter: .milliseconds(900 * scale), fenceAfter: .milliseconds(600 * scale),
        preferredHeadStart: .milliseconds(300 * scale), supervisorSilence: .milliseconds(300 * scale),
        retryAfterFailure: .milliseconds(100 * scale))

    @Test func thePreferredMachineOwnsIngressAndAFrozenOneHandsOverWithoutOverlap() async throws {
        try await StoreHarness.with { h in
            let changes = Changes()
            let nasContact = SupervisorContact(), laptopContact = SupervisorContact()
            let nas = Alive()
            func keeper(_ machine: String, preferred: Bool, _ contact: SupervisorContact) -> LeaseKeeper {
                LeaseKeeper(
                    store: h.store, lease: "ingress:telegram:ab12", messenger: "telegram", machine: machine, preferred: preferred,
                    times: Self.times, contact: contact, logger: Logger(label: machine))
            }
            try await withThrowingDiscardingTaskGroup { group in
                // The supervisors' pings: the laptop's always, the NAS's until it freezes.
                group.addTask {
                    while !Task.isCancelled {
                        laptopContact.heard()
                        if nas.isAlive { nasContact.heard() }
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
                group.addTask { await keeper("nas", preferred: true, nasContact).run { changes.add("nas", $0) } }
                group.addTask { await keeper("laptop", preferred: false, laptopContact).run { changes.add("laptop", $0) } }

                try await Self.waitUntil("NAS start", changes) { changes.first("nas") { $0 == .started(epoch: 1) } != nil }
                try await Task.sleep(for: .seconds(2 * Self.scale))
                #expect(changes.list.filter { $0.machine == "laptop" }.isEmpty, "the laptop never owned ingress while the NAS renewed")

                let frozen = ContinuousClock.now
                nas.freeze()
                // On a loaded machine a late renewal can cost the NAS its lease for a moment before
                // the freeze (it takes it back under the next epoch, the laptop having deferred to
                // it), so the laptop's epoch is the one after the NAS's last, not always 2.
                try await Self.waitUntil("laptop start", changes) { changes.first("laptop") { $0.isStart } != nil }
                let list = changes.list
                let start = try #require(list.firstIndex { $0.machine == "laptop" && $0.change.isStart })
                let nasEpochs = list.compactMap { $0.machine == "nas" ? $0.change.startedEpoch : nil }
                let epoch = try #require(list[start].change.startedEpoch)
                #expect(nasEpochs.allSatisfy { $0 < epoch }, "the laptop started under a newer epoch than the NAS's: \(list.map(\.change))")
                let before = list[..<start].last { $0.machine == "nas" }
                #expect(before.map { !$0.change.isStart } == true, "the NAS fenced itself before the laptop started")
                let started = list[start].at
                // Silence noticed (0.3 s), the lease's expiry (0.9 s after the last renewal), the
                // laptop's head start (0.3 s), and its retry at expiry.
                #expect(started - frozen < .milliseconds(2500 * Self.scale), "\(started - frozen)")
                group.cancelAll()
            }
            let list = changes.list.map { "\($0.machine) \($0.change)" }
            #expect(list.last == "laptop stopped(reason: \"stopping\")", "\(list)")
        }
    }

    /// A daemon whose machine name another daemon took (`machineLost`: the roster no longer
    /// counts it joined) stops ingress at its next renewal, not at the fence, and leaves the
    /// lease, kept by name, to the daemon now under that name.
    @Test func aDaemonThatLostItsNameStopsIngressAtItsNextRenewal() async throws {
        try await StoreHarness.with { h in
            let changes = Changes()
            let contact = SupervisorContact()
            let name = Mutex<String?>("laptop")
            let keeper = LeaseKeeper(
                store: h.store, lease: "ingress:telegram:cd34", messenger: "telegram", machine: "laptop", preferred: true, times: Self.times,
                contact: contact, joinedAs: { name.withLock { $0 } }, logger: Logger(label: "laptop"))
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled {
                        contact.heard()
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
                group.addTask { await keeper.run { changes.add("laptop", $0) } }
                try await Self.waitUntil("start", changes) { changes.first("laptop") { $0 == .started(epoch: 1) } != nil }
                let lost = ContinuousClock.now
                name.withLock { $0 = nil }
                try await Self.waitUntil("stop", changes) { changes.first("laptop") { if case .stopped = $0 { true } else { false } } != nil }
                let stopped = try #require(changes.list.last)
                #expect(
                    stopped.change == .stopped(reason: "this daemon no longer holds the machine's name in the federation (pi-relayd status says why)")
                )
                #expect(stopped.at - lost < Self.times.fenceAfter, "at the next renewal, before the fence: \(stopped.at - lost)")
                try await Task.sleep(for: Self.times.expireAfter)
                #expect(changes.list.count == 2, "no attempt while the name is another's: \(changes.list.map(\.change))")
                group.cancelAll()
            }
        }
    }

    struct TimedOut: Error, CustomStringConvertible { let description: String }

    static func waitUntil(_ what: String, _ changes: Changes, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw TimedOut(description: "no \(what) within 20 s; changes: \(changes.list.map { "\($0.machine) \($0.change)" })")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension LeaseKeeper.Change {
    var startedEpoch: Int64? { if case .started(let epoch) = self { epoch } else { nil } }
    var isStart: Bool { startedEpoch != nil }
}
