import Foundation
import PiRelaySDK
import Subprocess
#if canImport(Glibc)
import Glibc
#endif
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Runs one child with pipes on all three fds, in its own process group, and streams what it
/// does. stdout is split on LF only (never on U+2028); stderr is drained all the time so a
/// chatty child can never block on a full pipe. All I/O is asynchronous (stdin through
/// swift-subprocess's epoll writer, stdout and stderr through `PipeReader`'s epoll thread), so
/// no thread of the cooperative pool ever blocks on a pipe.
enum ChildProcess {
    /// Runs until the child exits. `input` is what to write to its stdin, in order; finishing it
    /// closes the child's stdin. Events go to `events` (the caller's stream).
    static func run(_ spec: ChildSpec, input: AsyncStream<[UInt8]>, gauge: InputGauge,
                    events: ChildEventSink) async -> ChildExit {
        var options = PlatformOptions()
        // A new session (and so a new process group) lets a shutdown signal the whole tree:
        // pi's bash tool starts grandchildren.
        options.createSession = true
        let executable: Executable = spec.executable.contains("/")
            ? .path(FilePath(spec.executable)) : .name(spec.executable)
        var env: [Environment.Key: String] = [:]
        for (k, v) in spec.environment { env[Environment.Key(stringLiteral: k)] = v }
        // Our own pipes for stdout and stderr, read by PipeReader: swift-subprocess's output
        // sequences park a zero-filled 64 KiB buffer on each pipe between reads.
        guard let out = ChildPipe.make() else { return .spawnFailed("cannot create a pipe: \(String(cString: strerror(errno)))") }
        guard let err = ChildPipe.make() else {
            close(out.read); close(out.write)
            return .spawnFailed("cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        let spawned = SpawnedFlag()
        defer {
            // The body never ran (the spawn failed): nobody else will close our ends.
            if !spawned.value { close(out.read); close(err.read) }
        }
        do {
            let result = try await Subprocess.run(
                executable,
                arguments: Arguments(spec.arguments),
                environment: .inherit.updating(env),
                workingDirectory: FilePath(spec.workingDirectory),
                platformOptions: options,
                input: .inputWriter,
                output: .fileDescriptor(FileDescriptor(rawValue: out.write), closeAfterSpawningProcess: true),
                error: .fileDescriptor(FileDescriptor(rawValue: err.write), closeAfterSpawningProcess: true)
            ) { execution in
                spawned.value = true
                events.yield(.started(pid: execution.processIdentifier.value))
                let outFramer = FramerBox(maxLineBytes: spec.maxLineBytes)
                let stdout = PipeReader(fd: out.read) { chunk in
                    var batch: [LineFramer.Event] = []
                    outFramer.framer.feed(chunk) { batch.append($0) }
                    for e in batch {
                        if case .oversized(let n) = e {
                            // At most one line over the cap fits in a chunk, so the prefix is its own.
                            events.yield(.stdoutOversized(bytes: n, prefix: outFramer.framer.oversizedPrefix))
                        } else {
                            events.yield(.stdout(e))
                        }
                    }
                } onEnd: {
                    if let n = outFramer.framer.finish() { events.yield(.stdout(.unterminatedTail(bytes: n))) }
                }
                let errFramer = FramerBox(maxLineBytes: 64 * 1024)
                let stderr = PipeReader(fd: err.read) { chunk in
                    errFramer.framer.feed(chunk) { event in
                        switch event {
                        case .line(let bytes): events.yield(.stderr(String(decoding: bytes, as: UTF8.self)))
                        case .oversized(let n): events.yield(.stderr("[\(n) bytes of stderr without a line break]"))
                        case .unterminatedTail: break
                        }
                    }
                } onEnd: {
                    if let n = errFramer.framer.finish(), n > 0 { events.yield(.stderr("[stderr ended without a line break after \(n) bytes]")) }
                }
                // A grandchild may hold the pipes open after the child is gone: its exit ends them.
                let exitWatch = ExitWatch(pidfd: execution.processIdentifier.processDescriptor, readers: [stdout, stderr])
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        let writer = execution.standardInputWriter
                        for await chunk in input {
                            do {
                                _ = try await writer.write(chunk)
                                gauge.written(chunk.count)
                            } catch {
                                gauge.written(chunk.count)
                                break
                            }
                        }
                        try? await writer.finish()
                    }
                    group.addTask {
                        await withTaskCancellationHandler {
                            await stderr.waitForEnd()
                        } onCancel: {
                            stderr.cancel()
                        }
                    }
                    await withTaskCancellationHandler {
                        await stdout.waitForEnd()
                    } onCancel: {
                        stdout.cancel()
                    }
                    // stdout is closed: the child is exiting. Stop feeding it; stderr drains to EOF.
                    await group.next()
                    group.cancelAll()
                }
                exitWatch.cancel()
                stdout.cancel()
                stderr.cancel()
            }
            switch result.terminationStatus {
            case .exited(let c): return .exited(c)
            case .signaled(let s): return .signaled(s)
            }
        } catch let e as SubprocessError {
            return .spawnFailed(describe(e, spec: spec))
        } catch {
            return .spawnFailed("\(error)")
        }
    }

    static func describe(_ e: SubprocessError, spec: ChildSpec) -> String {
        if e.code == .executableNotFound {
            return spec.executable.contains("/")
                ? "\(spec.executable) does not exist or is not executable"
                : "\(spec.executable) was not found in PATH"
        }
        if e.code == .failedToChangeWorkingDirectory {
            return "cannot enter working directory \(spec.workingDirectory)"
        }
        return "\(e)"
    }

    /// Signals the child's whole process group.
    static func signalGroup(_ pid: Int32, _ signal: Int32) {
        guard pid > 0 else { return }
        if kill(-pid, signal) != 0 { kill(pid, signal) }
    }
}

/// Counts bytes queued for a child's stdin but not yet written, to spot a child that stopped
/// reading.
final class InputGauge: @unchecked Sendable {
    private let lock = NSLock()
    private var queued = 0
    private var overSince: ContinuousClock.Instant?
    let highWater: Int

    init(highWater: Int = 1 << 20) {
        self.highWater = highWater
    }

    func enqueued(_ n: Int) {
        lock.lock(); defer { lock.unlock() }
        queued += n
        if queued > highWater, overSince == nil { overSince = .now }
    }

    func written(_ n: Int) {
        lock.lock(); defer { lock.unlock() }
        queued -= n
        if queued <= highWater { overSince = nil }
    }

    var pending: Int {
        lock.lock(); defer { lock.unlock() }
        return queued
    }

    /// How long the queue has been over the high-water mark.
    var overFor: Duration? {
        lock.lock(); defer { lock.unlock() }
        return overSince.map { .now - $0 }
    }
}
