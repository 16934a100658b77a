import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

/// One run of the plugin under `plugin check`, with pi-relayd's side of its pipes played: what
/// it says is kept in order for the steps to wait on, and the chat requests a messenger makes
/// are answered as the daemon answers them for a chat bound to one idle session.
package actor CheckedPlugin {
    package nonisolated let link: PluginLink
    package private(set) var messages: [WireMessage] = []
    /// stdout lines that are not protocol messages.
    package private(set) var junk: [String] = []
    package private(set) var stderrLines: [String] = []
    package private(set) var exit: ChildExit?
    /// The first stdout line, decoded or not: the hello.
    private var first: PluginLink.Event?
    private var pid: Int32?
    /// `messageId`s handed over: the daemon acts on each once, across the plugin's restarts.
    package private(set) var handedOver: Set<String>
    /// The driver's sign-in code (`CheckChat.pairing`), good once, and the user it paired.
    private let pairing: String?
    package private(set) var pairedUser: String?

    package init(link: PluginLink, handedOver: Set<String> = [], pairing: String? = nil, pairedUser: String? = nil) {
        self.link = link
        self.handedOver = handedOver
        self.pairing = pairing
        self.pairedUser = pairedUser
    }

    /// Runs the child until it exits, taking its events in the order it produced them.
    package nonisolated func run() async -> ChildExit {
        async let added: Void = { for await event in link.events { await self.add(event) } }()
        let exit = await link.run()
        await added
        return exit
    }

    package nonisolated func send(_ message: WireMessage) { link.send(message) }

    /// The number of messages so far: a mark to wait for what comes after it.
    package var mark: Int { messages.count }

    private func add(_ event: PluginLink.Event) {
        switch event {
        case .started(let started): pid = started
        case .message(let message):
            if first == nil { first = event }
            messages.append(message)
            if case .request(let id, let method, let params, _) = message {
                link.send(.response(id: id, result: answer(method, params)))
            }
        case .malformed(let preview, _):
            if first == nil { first = event }
            junk.append(String(preview.prefix(80)))
        case .oversized, .unterminated: break
        case .stderr(let line): stderrLines.append(line)
        case .exited(let exited): exit = exited
        }
    }

    /// What the daemon would answer (docs/PROTOCOL.md §6, "Messenger → supervisor").
    private func answer(_ method: String, _ params: JSONValue) -> Result<JSONValue, RemoteError> {
        switch MethodName(rawValue: method) {
        case .chatMessage:
            guard let id = params["messageId"]?.stringValue else { return .success(ChatMessageResult(status: .prompted).json) }
            let (fresh, _) = handedOver.insert(id)
            return .success(ChatMessageResult(status: fresh ? .prompted : .ignored).json)
        case .chatAnswer:
            let said =
                params["value"]?.stringValue ?? params["confirmed"]?.boolValue.map { $0 ? "yes" : "no" }
                ?? (params["cancelled"] == true ? "cancelled" : "")
            return .success(Reply(text: "Answered: \(said)", ephemeral: true).json)
        case .chatCommand: return .success(Reply(text: "plugin check: \(params["name"]?.stringValue ?? "command") noted", ephemeral: true).json)
        case .chatBind: return .success(Reply(text: "Watching check.", ephemeral: true).json)
        case .chatPair:
            guard let pairing, pairedUser == nil, params["code"]?.stringValue == pairing, let user = params["chat"]?["user"]?.stringValue else {
                return .success(Reply(text: "That code is not valid.", ephemeral: true).json)
            }
            pairedUser = user
            return .success(Reply(text: "Paired: pi-relayd lets \(user) through.", ephemeral: true, paired: true).json)
        default: return .failure(.methodNotFound(method))
        }
    }

    /// The first stdout line, within `limit`; nil when the plugin said nothing or exited.
    package func firstLine(within limit: Duration) async -> PluginLink.Event? {
        await poll(within: limit) { first }
    }

    /// The first message after `mark` that `match` picks, within `limit`.
    package func message(after mark: Int, within limit: Duration, _ match: @Sendable (WireMessage) -> Bool) async -> WireMessage? {
        await poll(within: limit) { messages[min(mark, messages.count)...].first(where: match) }
    }

    /// The messages after `mark` that `match` picks, once `limit` has passed (or the plugin exited).
    package func messages(after mark: Int, waiting limit: Duration, _ match: @Sendable (WireMessage) -> Bool) async -> [WireMessage] {
        _ = await poll(within: limit) { exit.map { _ in () } }
        return messages[min(mark, messages.count)...].filter(match)
    }

    /// The requests of `method` after `mark`, as sent.
    package func requests(after mark: Int, _ method: MethodName) -> [JSONValue] {
        messages[min(mark, messages.count)...].compactMap {
            if case .request(_, method.rawValue, let params, _) = $0 { params } else { nil }
        }
    }

    /// Sends a delivery and waits for its ack.
    package func deliver(_ delivery: CheckDelivery, within limit: Duration = .seconds(5)) async -> Bool {
        let mark = messages.count
        link.send(.deliver(id: delivery.id, method: delivery.method, params: delivery.params))
        return await message(after: mark, within: limit) { if case .ack(delivery.id) = $0 { true } else { false } } != nil
    }

    package func waitExit(within limit: Duration) async -> ChildExit? {
        await poll(within: limit) { exit }
    }

    /// SIGKILL to the plugin's process group: a crash, as far as the plugin knows.
    package func kill() {
        if let pid, exit == nil { ChildProcess.signalGroup(pid, SIGKILL) }
    }

    /// The last lines it wrote to stderr, for a failed step's detail.
    package var stderrTail: String { stderrLines.suffix(3).joined(separator: " | ") }

    /// Checks `found` every 10 ms until it gives a value, the plugin exits, or `limit` passes.
    private func poll<T>(within limit: Duration, _ found: () -> T?) async -> T? {
        let end = ContinuousClock.now + limit
        while true {
            if let value = found() { return value }
            if exit != nil || ContinuousClock.now >= end { return found() }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
