import PiRelaySDK
import SupervisorIO
import Synchronization

/// One plugin process and the protocol on its pipes: the spawn (environment and folder), its
/// events in the order it produced them with stdout lines decoded, and writing messages. The
/// daemon's slots (one link per instance), `pi-relayd render` and `pi-relayd plugin check` all
/// talk to plugins through it. A plugin linked into this process (`InProcessPlugin`, for tests
/// of the chat layer) speaks on a pipe pair the same way, with no pid.
package struct PluginLink: Sendable {
    /// What the plugin did, in order.
    package enum Event: Sendable {
        /// It runs: its pid, nil for a plugin linked into this process.
        case started(pid: Int32?)
        case message(WireMessage)
        /// A stdout line that is not a protocol message: skipped, never fatal.
        case malformed(preview: String, error: String)
        /// A line over the cap: skipped.
        case oversized(bytes: Int)
        /// An unterminated last line: never parsed.
        case unterminated(bytes: Int)
        case stderr(String)
        case exited(ChildExit)
    }

    package let spec: ChildSpec
    /// Set for a plugin linked into this process: it is served, not spawned.
    private let linked: InProcessPlugin?
    /// The signal a halt of a linked plugin stood in for, shared by the link's copies.
    private let halt = Halt()

    private final class Halt: Sendable {
        let signal = Mutex<Int32?>(nil)
    }
    package let input = ChildInput()
    /// The events; one consumer. Ends after `.exited`.
    package let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation

    /// A link to the executable at `path`, run in `workingDirectory`. `asPlugin: false` starts it
    /// as a person would (no `PI_RELAY_PLUGIN`), for `plugin check`. `extra` variables are set on
    /// top of the inherited environment (`setup` hands the token to check this way).
    package init(
        path: String, workingDirectory: String, home: String? = nil, maxLineBytes: Int = 8 << 20, asPlugin: Bool = true,
        extra: [String: String] = [:]
    ) {
        var environment = extra
        environment["PI_RELAY_PLUGIN"] = asPlugin ? "1" : "0"
        if asPlugin { environment["PI_RELAY_PROTOCOL"] = String(WireMessage.protocolVersion) }
        if let home { environment["PI_RELAYD_HOME"] = home }
        spec = ChildSpec(executable: path, environment: environment, workingDirectory: workingDirectory, maxLineBytes: maxLineBytes)
        linked = nil
        (events, sink) = AsyncStream<Event>.makeStream()
    }

    /// A link to `plugin`, served inside this process.
    package init(linking plugin: InProcessPlugin, workingDirectory: String, maxLineBytes: Int = 8 << 20) {
        spec = ChildSpec(executable: plugin.path, environment: [:], workingDirectory: workingDirectory, maxLineBytes: maxLineBytes)
        linked = plugin
        (events, sink) = AsyncStream<Event>.makeStream()
    }

    /// Runs the process until it exits; its events go to `events` meanwhile. Call it from the
    /// owner's own task (group), so the child lives in structured concurrency.
    @discardableResult
    package func run() async -> ChildExit {
        let sink = sink
        defer { sink.finish() }
        return await run { sink.yield($0) }
    }

    /// Runs the process, handing each event to `handler` in order (`events` stays empty): for
    /// an owner that merges them into a stream of its own.
    @discardableResult
    package func run(_ handler: @escaping @Sendable (Event) -> Void) async -> ChildExit {
        let exit: ChildExit
        if let linked {
            handler(.started(pid: nil))
            let halt = halt
            exit = await ChildProcess.runLinked(
                maxLineBytes: spec.maxLineBytes, input: input, events: ChildEventSink { handler(Self.event($0)) },
                halted: { halt.signal.withLock { $0 } }, serve: linked.serve)
        } else {
            exit = await ChildProcess.run(spec, input: input, events: ChildEventSink { handler(Self.event($0)) })
        }
        handler(.exited(exit))
        return exit
    }

    /// Signals the plugin: its process group, or for a linked plugin the end of its input (it
    /// has no process of its own to signal), its exit then reported as this signal.
    package func signal(_ signal: Int32, pid: Int32?) {
        if linked != nil {
            halt.signal.withLock { $0 = $0 ?? signal }
            input.finish()
        } else if let pid {
            ChildProcess.signalGroup(pid, signal)
        }
    }

    package func send(_ message: WireMessage) {
        input.send(message.encodedLine())
    }

    /// Closes the plugin's stdin: end of input means "exit" to a plugin.
    package func close() {
        input.finish()
    }

    /// The start of a line that is not the protocol's, for the log and `status`: redacted before
    /// it is cut, since a token cut in two is no longer one the redactor knows.
    package static func preview(_ bytes: some Collection<UInt8>) -> String {
        String(Redactor.redact(String(decoding: bytes.prefix(4096), as: UTF8.self)).prefix(120))
    }

    private static func event(_ child: ChildEvent) -> Event {
        switch child {
        case .started(let pid): return .started(pid: pid)
        case .stderr(let line): return .stderr(line)
        case .exited(let exit): return .exited(exit)
        case .stdoutOversized(let bytes, _), .stdout(.oversized(let bytes)): return .oversized(bytes: bytes)
        case .stdout(.unterminatedTail(let bytes)): return .unterminated(bytes: bytes)
        case .stdout(.line(let bytes)):
            do { return .message(try WireMessage.decode(bytes)) } catch {
                return .malformed(preview: preview(bytes), error: "\(error)")
            }
        }
    }
}
