import Logging
import Synchronization

/// Where each line from pi-relayd goes, decided on the thread that read it. Every hop from one
/// thread to another wakes a sleeping thread, and on a quiet machine each wake-up costs more CPU
/// than the work it carries (a ping took three, about 180 µs of CPU on a 2-core VM). So the
/// reading thread does what needs no task of its own:
/// - it answers pings;
/// - it answers a request the plugin can answer at once (`Plugin.answerAtOnce`);
/// - it hands a notification the plugin can take at once (`Plugin.takeAtOnce`) to it, while
///   nothing sent before waits in the notification's lane;
/// - it puts deliveries and notifications straight into their lane.
///
/// The rest (the welcome, responses, requests, shutdown) goes to the serving loop, in order.
/// Lanes keep the order they were sent in: once a line has gone to the loop, the lines after it
/// that the loop could have handled go there too, until the loop has caught up.
final class PluginInbound<P: Plugin>: Sendable {
    /// What the reading loop hears: a message, or the first end (shutdown, goodbye, end of
    /// input, the plugin's run failing).
    enum Input: Sendable {
        case message(WireMessage)
        case end(Int32)
    }

    private struct State {
        /// Set once the plugin is made: the reader may hand it work from then on.
        var plugin: P?
        /// Lines sent to the loop that it has not finished with.
        var behind = 0
        var lanes: [String: AsyncStream<WireMessage>.Continuation] = [:]
        /// Messages put in each lane that its task has not finished with.
        var waiting: [String: Int] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    /// Lines from the chunks `Plugin.readInput` reads, one reader at a time.
    private let lines = ChunkedLines(maxLineBytes: 8 << 20)
    private let writer: FDWriter
    private let contact: SupervisorContact
    private let logger: Logger
    private let loop: AsyncStream<Input>.Continuation
    /// New lanes, for the task that runs them.
    private let opened: AsyncStream<Lane>.Continuation
    /// Answers to the plugin's own requests, for the task that resolves them: taken at once, so
    /// a request made while the plugin is being made (`init(context:)`) is answered too, not
    /// held behind the loop that starts once it is made.
    let responses: AsyncStream<(id: String, result: Result<JSONValue, RemoteError>)>
    private let answered: AsyncStream<(id: String, result: Result<JSONValue, RemoteError>)>.Continuation

    /// A lane's name and its messages, in order.
    struct Lane: Sendable {
        let name: String
        let messages: AsyncStream<WireMessage>
    }

    /// The loop's inputs, and the lanes to run, each in its own task, which says `finished`
    /// after each message.
    let inputs: AsyncStream<Input>
    let newLanes: AsyncStream<Lane>

    /// Lanes a plugin may have busy at once (`Plugin.lane`); more share the default lane.
    static var maxLanes: Int { 1024 }

    init(writer: FDWriter, contact: SupervisorContact, logger: Logger) {
        self.writer = writer
        self.contact = contact
        self.logger = logger
        (inputs, loop) = AsyncStream<Input>.makeStream()
        (newLanes, opened) = AsyncStream<Lane>.makeStream()
        (responses, answered) = AsyncStream<(id: String, result: Result<JSONValue, RemoteError>)>.makeStream()
    }

    /// Bytes read from pi-relayd, on the reading thread: each whole line is read at once.
    func feed(_ chunk: UnsafeRawBufferPointer) {
        lines.feed(chunk) { read($0) }
    }

    /// The end of pi-relayd's input: a last line without its LF is reported, then serving ends.
    func inputEnded() {
        lines.finish { read($0) }
        end(0)
    }

    /// One line, on the reading thread.
    func read(_ event: LineFramer.Event) {
        guard case .line(let bytes) = event else {
            logger.warning("skipped input: \(event)")
            return
        }
        let message: WireMessage
        do { message = try WireMessage.decode(bytes) } catch {
            logger.warning("ignored a malformed line from pi-relayd: \(error)")
            return
        }
        contact.heard()
        switch message {
        case .ping(let id):
            writer.send(WireMessage.pong(id: id).encodedLine())
            return
        case .request(let id, let method, let params, let deadlineMs):
            // Requests run side by side anyway: answering one here passes no other.
            if let plugin = state.withLock({ $0.plugin }) {
                let request = PluginRequest(
                    id: id, method: method, params: params, isDelivery: false,
                    deadline: deadlineMs.map { ContinuousClock.now + .milliseconds($0) })
                if let result = plugin.answerAtOnce(request) {
                    writer.send(WireMessage.response(id: id, result: result).encodedLine())
                    return
                }
            }
        case .notify(let method, let params):
            if let plugin = state.withLock({ Self.idleLane(for: message, in: $0) }), plugin.takeAtOnce(notification: method, params: params) {
                return
            }
        case .response(let id, let result):
            answered.yield((id, result))
            return
        default:
            break
        }
        let laned = state.withLock { state -> Bool in
            if state.behind == 0, let plugin = state.plugin, Self.lane(message, plugin: plugin, &state, opened: opened) { return true }
            state.behind += 1
            return false
        }
        if !laned { loop.yield(.message(message)) }
    }

    /// Serving ends with `status`: 0 at the end of input (the supervisor is gone or closed our
    /// stdin), or the plugin's run failed.
    func end(_ status: Int32) {
        loop.yield(.end(status))
    }

    /// The plugin is made: from now on the reader hands it work.
    func ready(_ plugin: P) {
        state.withLock { $0.plugin = plugin }
    }

    /// The loop took a line the reader sent it: a delivery or notification goes to its lane, and
    /// counts as done (true). Anything else is the loop's own (false): it says `caughtUp` once it
    /// has handled it.
    func take(_ message: WireMessage) -> Bool {
        state.withLock { state in
            guard let plugin = state.plugin, Self.lane(message, plugin: plugin, &state, opened: opened) else { return false }
            state.behind -= 1
            return true
        }
    }

    /// A parked delivery goes back in its lane, behind what the lane holds now.
    func requeue(_ message: WireMessage) {
        state.withLock { state in
            guard let plugin = state.plugin else { return }
            _ = Self.lane(message, plugin: plugin, &state, opened: opened)
        }
    }

    /// A lane's task has handled one of its messages. A named lane with nothing more to do is
    /// let go (its task ends), so `maxLanes` counts the lanes busy now, not every chat ever seen.
    func finished(_ lane: String) {
        state.withLock { state in
            state.waiting[lane, default: 1] -= 1
            guard !lane.isEmpty, state.waiting[lane] == 0 else { return }
            state.waiting[lane] = nil
            state.lanes.removeValue(forKey: lane)?.finish()
        }
    }

    /// The plugin, when `message` may be taken at once: nothing sent before it waits in the
    /// loop or in its lane. Only the reading thread adds to either, so they stay empty until it
    /// goes on.
    private static func idleLane(for message: WireMessage, in state: State) -> P? {
        guard state.behind == 0, let plugin = state.plugin, case .notify(let method, let params) = message else { return nil }
        var lane = plugin.lane(of: method, params: params)
        if state.lanes[lane] == nil, state.lanes.count >= maxLanes { lane = "" }
        return state.waiting[lane, default: 0] == 0 ? plugin : nil
    }

    /// The loop has handled a line the reader sent it.
    func caughtUp() {
        state.withLock { $0.behind -= 1 }
    }

    /// No more lanes: those open finish what they hold.
    func closeLanes() {
        state.withLock { state in
            state.closed = true
            for lane in state.lanes.values { lane.finish() }
            state.lanes.removeAll()
        }
        opened.finish()
    }

    /// Puts a delivery or notification in its lane (one task per lane the plugin names, at most
    /// `maxLanes`, then new lanes share the default one); false for any other message.
    private static func lane(
        _ message: WireMessage, plugin: P, _ state: inout State, opened: AsyncStream<Lane>.Continuation
    ) -> Bool {
        var lane: String
        switch message {
        case .deliver(_, let method, let params), .notify(let method, let params):
            lane = plugin.lane(of: method, params: params)
        default:
            return false
        }
        guard !state.closed else { return true }
        if state.lanes[lane] == nil, state.lanes.count >= maxLanes { lane = "" }
        if state.lanes[lane] == nil {
            let (stream, continuation) = AsyncStream<WireMessage>.makeStream()
            state.lanes[lane] = continuation
            opened.yield(Lane(name: lane, messages: stream))
        }
        state.waiting[lane, default: 0] += 1
        state.lanes[lane]?.yield(message)
        return true
    }
}
