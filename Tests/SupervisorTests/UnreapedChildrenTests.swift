import Foundation
import Testing

@testable import Supervisor
@testable import SupervisorIO

/// pi-relayd signals only its own children that it has not reaped: a reaped child's pid (and its
/// empty group's id) may belong to a new process by then, another session's pi or the user's
/// own program, and a late SIGKILL meant for the dead child would end it.
@Suite struct UnreapedChildrenTests {
    final class StartedPID: @unchecked Sendable {
        private let lock = NSLock()
        private var pid: Int32?
        func set(_ value: Int32) { lock.lock(); pid = value; lock.unlock() }
        var value: Int32? { lock.lock(); defer { lock.unlock() }; return pid }
    }

    private func start(_ script: String) -> (Task<ChildExit, Never>, StartedPID) {
        let started = StartedPID()
        let spec = ChildSpec(executable: "/bin/sh", arguments: ["-c", script], workingDirectory: NSTemporaryDirectory())
        let task = Task {
            await ChildProcess.run(
                spec, input: ChildInput(),
                events: ChildEventSink { event in
                    if case .started(let pid) = event { started.set(pid) }
                })
        }
        return (task, started)
    }

    @Test(.timeLimit(.minutes(1)))
    func aRunningChildIsSignalledAndAReapedOneNever() async throws {
        let (task, started) = start("exec sleep 30")
        while started.value == nil { try await Task.sleep(for: .milliseconds(5)) }
        let pid = try #require(started.value)
        #expect(UnreapedChildren.contains(pid))
        #expect(UnreapedChildren.signalGroup(pid, SIGKILL))
        #expect(await task.value == .signaled(SIGKILL))
        // Reaped: its pid is free for anyone now, and nothing is sent to it.
        #expect(!UnreapedChildren.contains(pid))
        #expect(!UnreapedChildren.signalGroup(pid, 0))
    }

    @Test(.timeLimit(.minutes(1)))
    func aChildThatEndedOnItsOwnIsNotSignalledLater() async throws {
        let (task, started) = start("exit 3")
        #expect(await task.value == .exited(3))
        let pid = try #require(started.value)
        #expect(!UnreapedChildren.signalGroup(pid, SIGKILL))
    }

    /// A process this one did not start, here the test runner's own parent: never signalled,
    /// even with signal 0.
    @Test func aProcessStartedElsewhereIsNeverSignalled() {
        #expect(!UnreapedChildren.signalGroup(getppid(), 0))
        #expect(!UnreapedChildren.signalGroup(getpid(), 0))
    }

    /// `ChildSpawn.reap` without waiting leaves a running child in the table, and takes it out
    /// once it has exited.
    @Test(.timeLimit(.minutes(1)))
    func reapingWithoutWaitingKeepsARunningChild() async throws {
        let nothing = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(nothing) }
        let spawned = ChildSpawn.spawn(
            ChildSpec(executable: "/bin/sh", arguments: ["-c", "exec sleep 30"], workingDirectory: "/"), stdin: nothing, stdout: nothing,
            stderr: nothing)
        guard case .success(let pid) = spawned else {
            Issue.record("spawn failed: \(spawned)")
            return
        }
        #expect(ChildSpawn.reap(pid, wait: false) == nil)
        #expect(UnreapedChildren.contains(pid))
        #expect(UnreapedChildren.signalGroup(pid, SIGKILL))
        #expect(ChildSpawn.reap(pid, wait: true) == .signaled(SIGKILL))
        #expect(!UnreapedChildren.contains(pid))
    }
}
