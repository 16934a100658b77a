import Foundation
import Logging
import PiRelaySDK

/// The heart of the daemon: answers the control socket and the plugins, and owns what the
/// supervisor owns (sessions, bindings). Plugins and CLI are both just ways in.
actor Relay: PluginRouter, ControlHandler, SessionObserver {
    let home: Home
    let logger: Logger
    let pluginConfig: [String: JSONValue]
    let startedAt = Date()
    private(set) var host: PluginHost?
    private(set) var sessions: Sessions?
    var busyBehavior = "followUp"
    var defaultCwd: String?
    let environment: [String: String]
    var bindings: [String: Binding] = [:]
    var bindingStore: StateFile<Binding>?
    /// Records that could not be read at start (the daemon logged them); `status` shows them.
    private var stateProblems: [String] = []
    var handledMessages: HandledMessages?
    var live: [String: LiveFeed] = [:]
    var limits: [String: Int] = [:]
    var uploadLimits: [String: Int] = [:]
    var daemonLog: RotatingLog?
    var bindingSaveError: String?
    private var notes: [String]
    private var stopper: (@Sendable () async -> Void)?

    init(
        home: Home, logger: Logger, pluginConfig: [String: JSONValue], notes: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.environment = environment
        self.home = home
        self.logger = logger
        self.pluginConfig = pluginConfig
        self.notes = notes
    }

    func attach(
        host: PluginHost, sessions: Sessions, busyBehavior: String, defaultCwd: String?,
        bindingStore store: StateFile<Binding>, saved: StateFile<Binding>.Loaded, stateProblems: [String],
        stopper: @escaping @Sendable () async -> Void
    ) {
        self.host = host
        self.sessions = sessions
        self.busyBehavior = busyBehavior
        self.defaultCwd = defaultCwd
        self.stopper = stopper
        bindingStore = store
        for b in saved.records { bindings[b.key] = b }
        self.stateProblems = stateProblems
        handledMessages = HandledMessages(path: home.stateDir + "/chat-messages.json", logger: logger)
    }

    // MARK: PluginRouter

    func handle(plugin: String, method: String, params: JSONValue) async throws -> JSONValue {
        if method == "relay.status" { return try await statusJSON() }
        switch MethodName(rawValue: method) {
        case .chatMessage?:
            return try await chatMessageOnce(plugin: plugin, params: try ChatMessageParams(json: params)).json
        case .chatCommand?:
            return try await chatCommand(plugin: plugin, params: try ChatCommandParams(json: params)).json
        case .chatAnswer?:
            return try await chatAnswer(plugin: plugin, params: try ChatAnswerParams(json: params)).json
        case .chatBind?:
            return try await chatBind(plugin: plugin, params: try ChatBindParams(json: params)).json
        default:
            throw RemoteError.methodNotFound(method)
        }
    }

    /// `chat.message` once per message id: a messenger restarted after a crash hands over again
    /// what it had in flight, and a repeat must not prompt pi twice (it is `ignored`). The id is
    /// saved before pi is prompted, not after: a daemon killed in between loses that one prompt
    /// rather than running it twice (a prompt can run commands; the user sees no answer and can
    /// send it again), and that window is a disk write, not pi's answer time. A handling that
    /// failed is forgotten, so the messenger's retry is acted on.
    private func chatMessageOnce(plugin: String, params: ChatMessageParams) async throws -> ChatMessageResult {
        guard let id = params.messageID, !id.isEmpty, handledMessages != nil else {
            return try await chatMessage(plugin: plugin, params: params)
        }
        let key = plugin + ":" + id
        guard handledMessages?.insert(key) == true else {
            logger.info("chat message \(id) from \(plugin) was handled before; not again")
            return ChatMessageResult(status: .ignored)
        }
        saveHandledMessages()
        do {
            return try await chatMessage(plugin: plugin, params: params)
        } catch {
            handledMessages?.remove(key)
            saveHandledMessages()
            throw error
        }
    }

    private func saveHandledMessages() {
        do { try handledMessages?.save() } catch {
            logger.warning("cannot save the handled chat messages: \(error)")
        }
    }

    func notification(plugin: String, method: String, params: JSONValue) async {
        logger.debug("plugin \(plugin): notification \(method)")
    }

    func welcome(plugin: String) async -> Welcome {
        let mine = bindings.values.filter { $0.messenger == plugin }.sorted { $0.key < $1.key }.map(\.summary)
        return Welcome(
            plugin: plugin, config: pluginConfig[plugin] ?? [:], stateDir: home.pluginStateDir(plugin), spoolDir: home.spoolDir,
            home: home.root, sessions: await sessions?.list() ?? [], bindings: mine)
    }

    func pluginReady(plugin: String, hello: Hello) async {
        if let n = hello.limits["maxMessageLength"] { limits[plugin] = n }
        if let n = hello.limits["maxUploadBytes"] { uploadLimits[plugin] = n }
        if hello.roles.contains("messenger") { await bindConfiguredChannels(messenger: plugin) }
    }

    // MARK: ControlHandler

    func handle(method: String, params: JSONValue, stream: ControlStream) async throws -> JSONValue? {
        guard let host else { throw RemoteError(code: .unavailable, message: "pi-relayd is starting") }
        switch method {
        case "ping", "version":
            return ["version": .string(Version.current), "pid": JSONValue(Int(getpid()))]
        case "status":
            return try await statusJSON()
        case "plugins":
            return await host.status()
        case "plugins.reload":
            let r = await host.reload()
            return ["added": .array(r.added.map { .string($0) }), "removed": .array(r.removed.map { .string($0) })]
        case "plugins.restart":
            guard let name = params["name"]?.stringValue else { throw RemoteError.invalidParams("plugins.restart needs a name") }
            try await host.restart(name)
            return ["restarted": .string(name)]
        case "plugins.call":
            // A debugging door into any plugin: a request (retried across crashes) or an
            // acknowledged delivery (kept in the outbox until acked).
            guard let name = params["name"]?.stringValue, let method = params["method"]?.stringValue else {
                throw RemoteError.invalidParams("plugins.call needs name and method")
            }
            guard let slot = await host.slot(name) else { throw RemoteError(code: .notFound, message: "no plugin named \(name)") }
            let p = params["params"] ?? [:]
            if params["deliver"]?.boolValue == true {
                let id = try await slot.deliver(method, params: p)
                return ["delivered": .string(id)]
            }
            let timeout = Duration.milliseconds(params["timeoutMs"]?.intValue ?? 30_000)
            return try await slot.request(method, params: p, timeout: timeout)
        case "stop":
            let stopper = stopper
            // Unstructured on purpose: the reply must go out before the daemon tears down.
            Task {
                try? await Task.sleep(for: .milliseconds(50))
                await stopper?()
            }
            return ["stopping": true]
        default:
            if let sessions, SessionControl.methods.contains(method) {
                return try await SessionControl(sessions: sessions, relay: self)
                    .handle(method: method, params: params, stream: stream)
            }
            throw RemoteError.methodNotFound(method)
        }
    }

    func setDaemonLog(_ log: RotatingLog) { daemonLog = log }

    /// Things the owner should fix that do not stop relaying: a full disk, say.
    func problems() async -> [String] {
        var out = stateProblems
        if let e = daemonLog?.failure { out.append("daemon log: \(e)") }
        if let e = await sessions?.saveError { out.append("sessions not saved: \(e)") }
        if let e = bindingSaveError { out.append("bindings not saved: \(e)") }
        for p in (await host?.status())?.arrayValue ?? [] {
            if let e = p["outboxError"]?.stringValue { out.append("plugin \(p["name"]?.stringValue ?? "?") outbox: \(e)") }
            if let e = p["logError"]?.stringValue { out.append("plugin \(p["name"]?.stringValue ?? "?") log: \(e)") }
        }
        return out
    }

    private func statusJSON() async throws -> JSONValue {
        let plugins = await host?.status() ?? []
        let list = (await sessions?.list() ?? []).json
        return [
            "version": .string(Version.current), "pid": JSONValue(Int(getpid())), "home": .string(home.root),
            "sessions": list,
            "uptimeSeconds": JSONValue(Int(Date().timeIntervalSince(startedAt))),
            "plugins": plugins, "notes": .array(notes.map { .string($0) }),
            "problems": .array(await problems().map { .string(Redactor.redact($0)) }),
        ]
    }
}
