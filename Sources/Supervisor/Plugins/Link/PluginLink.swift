import PiRelaySDK
import SupervisorIO

/// One plugin process and the protocol on its pipes: the spawn (environment and folder), its
/// events in the order it produced them with stdout lines decoded, and writing messages. The
/// daemon's slots (one link per instance), `pi-relayd render` and `pi-relayd plugin check` all
/// talk to plugins through it.
package struct PluginLink: Sendable {
    /// What the plugin did, in order.
    package enum Event: Sendable {
        case started(pid: Int32)
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
        let exit = await ChildProcess.run(spec, input: input, events: ChildEventSink { handler(Self.event($0)) })
        handler(.exited(exit))
        return exit
    }

    package func send(_ message: WireMessage) {
        input.send(message.encodedLine())
    }

    /// Closes the plugin's stdin: end of input means "exit" to a plugin.
    package func close() {
        input.finish()
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
                return .malformed(preview: String(decoding: bytes.prefix(120), as: UTF8.self), error: "\(error)")
            }
        }
    }
}
