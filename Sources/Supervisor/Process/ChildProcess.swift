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
/// chatty child can never block on a full pipe. All I/O is asynchronous (swift-subprocess uses
/// epoll), so no thread of the cooperative pool ever blocks on a pipe.
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
        do {
            let result = try await Subprocess.run(
                executable,
                arguments: Arguments(spec.arguments),
                environment: .inherit.updating(env),
                workingDirectory: FilePath(spec.workingDirectory),
                platformOptions: options,
                input: .inputWriter,
                output: .sequence,
                error: .sequence
            ) { execution in
                events.yield(.started(pid: execution.processIdentifier.value))
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
                        var framer = LineFramer(maxLineBytes: 64 * 1024)
                        do {
                            for try await buffer in execution.standardError {
                                buffer.withUnsafeBytes { raw in
                                    framer.feed(raw) { event in
                                        switch event {
                                        case .line(let bytes): events.yield(.stderr(String(decoding: bytes, as: UTF8.self)))
                                        case .oversized(let n): events.yield(.stderr("[\(n) bytes of stderr without a line break]"))
                                        case .unterminatedTail: break
                                        }
                                    }
                                }
                            }
                        } catch {}
                        if let n = framer.finish(), n > 0 { events.yield(.stderr("[stderr ended without a line break after \(n) bytes]")) }
                    }
                    var framer = LineFramer(maxLineBytes: spec.maxLineBytes)
                    do {
                        for try await buffer in execution.standardOutput {
                            var batch: [LineFramer.Event] = []
                            buffer.withUnsafeBytes { raw in framer.feed(raw) { batch.append($0) } }
                            for e in batch {
                                if case .oversized(let n) = e {
                                    // At most one line over the cap fits in a chunk, so the prefix is its own.
                                    events.yield(.stdoutOversized(bytes: n, prefix: framer.oversizedPrefix))
                                } else {
                                    events.yield(.stdout(e))
                                }
                            }
                        }
                    } catch {}
                    if let n = framer.finish() { events.yield(.stdout(.unterminatedTail(bytes: n))) }
                    // stdout is closed: the child is exiting. Stop feeding it; stderr drains to EOF.
                    await group.next()
                    group.cancelAll()
                }
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
