import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor
@testable import SupervisorIO

/// A child's stdin written from the sender's thread: order kept across what the pipe took at once
/// and what waited for the poller, end of file after the last byte, and a child that stops
/// reading or exits costs neither a block nor the process.
@Suite struct ChildInputTests {
    /// Collects a child's stdout lines; the sink runs on the poller thread.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [[UInt8]] = []
        func add(_ l: [UInt8]) { lock.lock(); lines.append(l); lock.unlock() }
        var all: [[UInt8]] { lock.lock(); defer { lock.unlock() }; return lines }
    }

    private func run(_ executable: String, _ arguments: [String], input: ChildInput, lines: Lines) -> Task<ChildExit, Never> {
        let spec = ChildSpec(
            executable: executable, arguments: arguments, workingDirectory: NSTemporaryDirectory(),
            maxLineBytes: 1 << 20)
        return Task {
            await ChildProcess.run(
                spec, input: input,
                events: ChildEventSink { e in
                    if case .stdout(.line(let bytes)) = e { lines.add(bytes) }
                })
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func everythingArrivesInOrderThenEndOfFile() async throws {
        let input = ChildInput()
        // Sent before the child exists: waits for attach.
        input.send(Array("line-0\n".utf8))
        let lines = Lines()
        // A reader that starts only once everything is sent, so the pipe fills and the poller
        // writes the rest (a timed one may start early on a loaded machine).
        let gate = NSTemporaryDirectory() + "/child-input-gate-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(gate) }
        let child = run("/bin/sh", ["-c", "while [ ! -e '\(gate)' ]; do sleep 0.05; done; cat"], input: input, lines: lines)
        let filler = String(repeating: "x", count: 4000)
        for i in 1...2000 { input.send(Array("line-\(i) \(filler)\n".utf8)) }
        #expect(input.pending > 0)
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        input.finish()
        input.send(Array("after finish\n".utf8))
        let exit = await child.value
        #expect(exit == .exited(0))  // cat saw end of file
        let got = lines.all.map { String(String(decoding: $0.prefix(12), as: UTF8.self).split(separator: " ")[0]) }
        #expect(got.count == 2001)
        #expect(got == (0...2000).map { "line-\($0)" })
        #expect(input.pending == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func aChildThatStopsReadingIsSeenAndNeverBlocksTheSender() async throws {
        let input = ChildInput(highWater: 256 << 10)
        let lines = Lines()
        let child = run("/bin/sh", ["-c", "echo ready; exec sleep 30"], input: input, lines: lines)
        while lines.all.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        let started = ContinuousClock.now
        let chunk = [UInt8](repeating: 0x41, count: 64 << 10)
        for _ in 0..<32 { input.send(chunk) }  // 2 MiB into a 64 KiB pipe nobody reads
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(input.pending > 1 << 20)
        try await Task.sleep(for: .milliseconds(50))
        #expect(input.overFor != nil)
        // Kill the group; the run ends, what waited is dropped and later sends are no-ops.
        let pid = try #require(Self.childPid(of: "sleep 30"))
        kill(pid, SIGKILL)
        let exit = await child.value
        #expect(exit == .signaled(SIGKILL))
        input.send(chunk)
        #expect(input.pending == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func writingToAChildThatExitedIsAFailedWriteNotADeadProcess() async throws {
        let input = ChildInput()
        let lines = Lines()
        let child = run("/bin/sh", ["-c", "echo bye"], input: input, lines: lines)
        while lines.all.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        // The child may or may not be reaped yet: either the pipe is broken (EPIPE) or detached.
        for _ in 0..<100 { input.send([UInt8](repeating: 0x42, count: 8 << 10)) }
        let exit = await child.value
        #expect(exit == .exited(0))
        input.send(Array("more\n".utf8))
        #expect(input.pending == 0)
    }

    /// The pid of our child whose command line is exactly `command` (the shell exec'd it).
    static func childPid(of command: String) -> Int32? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        let me = getpid()
        for name in names {
            guard let pid = Int32(name),
                let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[1]) == me,
                let cmd = try? String(contentsOfFile: "/proc/\(name)/cmdline", encoding: .utf8)
            else { continue }
            if cmd.split(separator: "\0").joined(separator: " ") == command { return pid }
        }
        return nil
    }
}
