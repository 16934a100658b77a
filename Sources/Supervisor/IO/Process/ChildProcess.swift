import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Runs one child with pipes on all three fds, in its own process group, and streams what it
/// does. stdout is split on LF only (never on U+2028); stderr is drained all the time so a
/// chatty child can never block on a full pipe. No thread of the cooperative pool ever blocks on
/// a pipe: stdin is written without blocking by `ChildInput`, stdout and stderr are read by
/// `PipeReader`'s epoll thread.
package enum ChildProcess {
    /// Runs until the child exits. `input` is the child's stdin: what the caller sends there is
    /// written in order, and finishing it closes the child's stdin. Events go to `events` (the
    /// caller's stream). With a `window`, reading stops while the caller is that far behind
    /// (the caller reports each event it handled to the window).
    package static func run(_ spec: ChildSpec, input: ChildInput, events: ChildEventSink, window: ReadWindow? = nil) async -> ChildExit {
        let events = ChildEventSink { event in
            window?.sent(event)
            events.yield(event)
        }
        // Our own pipes: stdout and stderr read by PipeReader, stdin written by ChildInput from
        // the sender's thread (no hop through a writer task).
        var pipes: [ChildPipe] = []
        for _ in 0..<3 {
            guard let pipe = ChildPipe.make() else {
                let reason = String(cString: strerror(errno))
                for pipe in pipes { close(pipe.read); close(pipe.write) }
                input.detach()
                return .spawnFailed("cannot create a pipe: \(reason)")
            }
            pipes.append(pipe)
        }
        let (inp, out, err) = (pipes[0], pipes[1], pipes[2])
        // A new session (and so a new process group) lets a shutdown signal the whole tree:
        // pi's bash tool starts grandchildren.
        var spawned = ChildSpawn.spawn(spec, stdin: inp.read, stdout: out.write, stderr: err.write)
        // ETXTBSY: the program was just written (a script a user or a test saved a moment ago),
        // and a child another thread was starting at that instant still holds the writer's
        // descriptor until its own exec. That lasts microseconds, so a few short waits pass it:
        // slept, not spun, so no thread of the shared pool is held.
        for _ in 1..<ChildSpawn.busyRetries where spawned == .failure(.busy) {
            try? await Task.sleep(for: .milliseconds(2))
            spawned = ChildSpawn.spawn(spec, stdin: inp.read, stdout: out.write, stderr: err.write)
        }
        // The child has its copies (or there is no child): ours go.
        close(inp.read)
        close(out.write)
        close(err.write)
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let failure):
            close(out.read)
            close(err.read)
            close(inp.write)
            input.detach()
            return .spawnFailed(describe(failure, spec: spec))
        }
        input.attach(inp.write)
        events.yield(.started(pid: pid))
        let stdout = stdoutReader(fd: out.read, maxLineBytes: spec.maxLineBytes, window: window, paced: spec.pacedOutput, events: events)
        let errFramer = FramerBox(maxLineBytes: 64 * 1024)
        let stderr = PipeReader(fd: err.read, window: window) { chunk in
            errFramer.framer.feed(chunk) { event in
                switch event {
                case .line(let bytes): events.yield(.stderr(String(decoding: bytes, as: UTF8.self)))
                case .oversized(let bytes): events.yield(.stderr("[\(bytes) bytes of stderr without a line break]"))
                case .unterminatedTail: break
                }
            }
        } onEnd: {
            if let bytes = errFramer.framer.finish(), bytes > 0 { events.yield(.stderr("[stderr ended without a line break after \(bytes) bytes]")) }
        }
        // A grandchild may hold the pipes open after the child is gone: its exit ends them.
        let exitWatch = ExitWatch(pid: pid, pidfd: ChildSpawn.exitDescriptor(pid), readers: [stdout, stderr])
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await stderr.waitForEnd() }
                await stdout.waitForEnd()
                // stdout is closed: the child is exiting. Stop feeding it; stderr drains to EOF
                // (or until the child is gone and its pipe is empty: ExitWatch).
                input.detach()
                await group.next()
            }
        } onCancel: {
            // Nobody will read the child any more: it must not outlive its reader.
            signalGroup(pid, SIGKILL)
            stdout.cancel()
            stderr.cancel()
        }
        return await exitWatch.exit()
    }

    /// Runs a child linked into this process (a plugin under test): `serve` speaks on a pipe pair
    /// as a child would on its stdin and stdout, so the lines go through the same framing, caps
    /// and non-blocking writes, and returns its exit status. It has no pid and no stderr.
    /// `halted` is the signal a halt stood in for (the caller closed `input` to stop it), if any.
    package static func runLinked(
        maxLineBytes: Int, input: ChildInput, events: ChildEventSink, halted: @escaping @Sendable () -> Int32?,
        serve: @escaping @Sendable (_ input: Int32, _ output: Int32) async -> Int32
    ) async -> ChildExit {
        guard let inp = ChildPipe.make() else {
            input.detach()
            return .spawnFailed("cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        guard let out = ChildPipe.make() else {
            let reason = String(cString: strerror(errno))
            close(inp.read)
            close(inp.write)
            input.detach()
            return .spawnFailed("cannot create a pipe: \(reason)")
        }
        input.attach(inp.write)
        let stdout = stdoutReader(fd: out.read, maxLineBytes: maxLineBytes, window: nil, paced: false, events: events)
        // `serve` owns its ends of the pipes and closes them when it is done.
        let status = await withTaskGroup(of: Int32.self) { group in
            group.addTask { await serve(inp.read, out.write) }
            await stdout.waitForEnd()
            input.detach()
            return await group.next() ?? 0
        }
        if let signal = halted() { return .signaled(signal) }
        return .exited(status)
    }

    /// stdout split into lines (LF only), each event handed to `events` in order.
    private static func stdoutReader(fd: Int32, maxLineBytes: Int, window: ReadWindow?, paced: Bool, events: ChildEventSink) -> PipeReader {
        let outFramer = FramerBox(maxLineBytes: maxLineBytes)
        return PipeReader(fd: fd, window: window, paced: paced) { chunk in
            var batch: [LineFramer.Event] = []
            outFramer.framer.feed(chunk) { batch.append($0) }
            for event in batch {
                if case .oversized(let bytes) = event {
                    // At most one line over the cap fits in a chunk, so the prefix is its own.
                    events.yield(.stdoutOversized(bytes: bytes, prefix: outFramer.framer.oversizedPrefix))
                } else {
                    events.yield(.stdout(event))
                }
            }
        } onEnd: {
            if let bytes = outFramer.framer.finish() { events.yield(.stdout(.unterminatedTail(bytes: bytes))) }
        }
    }

    package static func describe(_ failure: ChildSpawn.Failure, spec: ChildSpec) -> String {
        switch failure {
        case .notFound:
            return spec.executable.contains("/")
                ? "\(spec.executable) does not exist or is not executable"
                : "\(spec.executable) was not found in PATH"
        case .noWorkingDirectory:
            return "cannot enter working directory \(spec.workingDirectory)"
        case .busy:
            return "cannot start \(spec.executable): the program is being written (ETXTBSY)"
        case .other(let why):
            return "cannot start \(spec.executable): \(why)"
        }
    }

    /// Signals the child's whole process group, as long as it has not been reaped: a reaped
    /// child's pid may be someone else's by now (`UnreapedChildren`).
    package static func signalGroup(_ pid: Int32, _ signal: Int32) {
        UnreapedChildren.signalGroup(pid, signal)
    }
}
