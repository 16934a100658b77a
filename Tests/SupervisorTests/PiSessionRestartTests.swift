import Foundation
import Logging
import PiRelaySDK
import Testing

@testable import Supervisor

/// A session's own pi restarted while the old one's exit is still being heard: the fake pi, a
/// save that takes a second, and a new pi slow to start (real pi loads its extensions and models
/// first), so that the old exit's handling is still under way when the new pi's first command
/// waits for its answer.
@Suite struct PiSessionRestartTests {
    static let fakePi = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fakes/fake-pi/pi").path

    /// Sessions' saves, made slow on demand.
    actor Saves {
        var slow = false
        func startSlowing() { slow = true }
        func save() async { if slow { try? await Task.sleep(for: .seconds(1)) } }
    }

    struct Unwatched: SessionObserver {
        func session(_ id: String, did news: SessionNews) async {}
        func session(_ session: PiSession, changed run: RunRecord) async -> Bool { false }
    }

    /// A pi that stops answering (SIGSTOP) is killed and started again (`hung`). The new pi's
    /// get_state must not be failed by the old pi's exit, which drains the commands in flight.
    @Test(.timeLimit(.minutes(1)))
    func aPiRestartedAfterAHungCommandIsNotEndedByTheOldOnesExit() async throws {
        let dir = try FileManager.default.url(
            for: .itemReplacementDirectory, in: .userDomainMask, appropriateFor: URL(fileURLWithPath: NSTemporaryDirectory()), create: true
        ).path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The second pi takes 3 s to start: its get_state waits that long for an answer.
        let wrapper = dir + "/pi"
        try """
        #!/bin/sh
        if [ -e "\(dir)/started" ]; then sleep 3; fi
        touch "\(dir)/started"
        exec "\(Self.fakePi)" "$@"
        """.write(toFile: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper, 0o755)
        try FileManager.default.createDirectory(atPath: dir + "/w", withIntermediateDirectories: true)
        var settings = PiSettings()
        settings.command = wrapper
        settings.agentDir = dir + "/agent"
        settings.loadsExtension = false
        var launcher = PiLauncher(settings: settings)
        launcher.commandTimeout = .seconds(2)
        let saves = Saves()
        let now = Date()
        let session = PiSession(
            record: SessionRecord(id: "s1", name: "stuck", cwd: dir + "/w", createdAt: now, lastActivity: now), launcher: launcher,
            historyEntries: 100, historyBytes: 1 << 20, logger: Logger(label: "test"), observer: Unwatched(), imageDir: dir + "/images",
            persist: { _ in await saves.save() })
        try await session.ensureRunning()
        let first = try #require(await session.pid)

        await saves.startSlowing()
        kill(first, SIGSTOP)
        await #expect(throws: (any Error).self) { _ = try await session.command(.getState, timeout: .seconds(1)) }
        let deadline = ContinuousClock.now + .seconds(20)
        var answered = false
        while !answered, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            guard let pid = await session.pid, pid != first, await session.isRunning else { continue }
            answered = (try? await session.command(.getState, timeout: .seconds(5))) != nil
        }
        #expect(answered, "a new pi answers")
        await session.end()
    }
}
