import FoundationEssentials
import PiRelaySDK
import SupervisorIO

/// Runs one plugin directly, without the daemon, for CLI commands such as `render`: handshake,
/// requests, shutdown, over a `PluginLink`.
package actor PluginClient {
    private var link: PluginLink?
    private var pending = PendingRequests(idPrefix: "c")
    private var hello: CheckedContinuation<Hello, any Error>?
    private var handshake: HelloCheck?
    private var exit: ChildExit?
    private var stderr: [String] = []
    private var task: Task<Void, Never>?

    package struct Failure: Error, CustomStringConvertible { package let description: String }

    package init() {}

    /// Starts the plugin executable, with `environment` on top of the inherited one.
    package func spawn(path: String, workingDirectory: String, environment: [String: String] = [:]) {
        let link = PluginLink(path: path, workingDirectory: workingDirectory, extra: environment)
        self.link = link
        // Unstructured on purpose: the child runs for the client's lifetime, across many calls.
        task = Task {
            // One consumer: the child's events are handled in the order it produced them.
            async let handled: Void = self.receive(all: link.events)
            await link.run()
            await handled
        }
    }

    private func receive(all events: AsyncStream<PluginLink.Event>) async {
        for await event in events { receive(event) }
    }

    /// Waits for the hello, then sends the welcome.
    package func start(config: JSONValue, stateDir: String, checkOnly: Bool = false, timeout: Duration = .seconds(10)) async throws -> Hello {
        let said = try await awaitHello(timeout: timeout)
        welcome(plugin: said.name, config: config, stateDir: stateDir, checkOnly: checkOnly)
        return said
    }

    /// Waits for the hello; the welcome is the caller's to send (`welcome`), once it has checked
    /// the config section against the hello's schema.
    package func awaitHello(timeout: Duration = .seconds(10)) async throws -> Hello {
        try await withDeadline(timeout, onTimeout: { [weak self] in await self?.failHello("no hello within \(timeout)") }) {
            try await withCheckedThrowingContinuation { continuation in
                hello = continuation
                if let handshake { judge(handshake) }
            }
        }
    }

    /// Sends the welcome, all folders in `stateDir`.
    package func welcome(plugin: String, config: JSONValue, stateDir: String, checkOnly: Bool) {
        link?.send(.welcome(.alone(plugin: plugin, config: config, folder: stateDir, checkOnly: checkOnly)))
    }

    /// What a plugin says of itself: its hello, and then it is told to stop, never welcomed. For
    /// `setup` and `doctor`, which take a messenger's schema and setup text from it.
    package static func hello(plugin path: String) async throws -> Hello {
        let client = PluginClient()
        await client.spawn(path: path, workingDirectory: UserFolders.temporary)
        do {
            let said = try await client.awaitHello()
            await client.stop()
            return said
        } catch {
            await client.stop()
            throw error
        }
    }

    package func request<Params, Result>(
        _ method: RequestMethod<Params, Result>, _ params: Params, timeout: Duration = .seconds(30)
    ) async throws -> Result {
        try Result(json: try await request(method.name.rawValue, params.json, timeout: timeout))
    }

    package func request(_ method: String, _ params: JSONValue, timeout: Duration = .seconds(30)) async throws -> JSONValue {
        if let exit { throw failure(exit) }
        let id = pending.nextID()
        return try await withDeadline(timeout, onTimeout: { [weak self] in await self?.expire(id, after: timeout) }) {
            try await withCheckedThrowingContinuation { continuation in
                pending.add(id, PendingRequests.Entry(method: method, params: params, continuation: continuation, sentTo: 1))
                link?.send(.request(id: id, method: method, params: params, deadlineMs: timeout.inMilliseconds))
            }
        }
    }

    package func stop() async {
        link?.send(.shutdown(graceMs: 1000))
        link?.close()
        await task?.value
    }

    private func expire(_ id: String, after timeout: Duration) {
        pending.remove(id)?.continuation.resume(throwing: RemoteError.timeout("the plugin did not answer within \(timeout)"))
    }

    private func failHello(_ why: String) {
        hello?.resume(throwing: Failure(description: why))
        hello = nil
    }

    private func judge(_ check: HelloCheck) {
        guard let waiting = hello else { return }
        hello = nil
        switch check {
        case .accepted(let said): waiting.resume(returning: said)
        case .incompatible(_, let goodbye):
            link?.send(.goodbye(reason: goodbye))
            waiting.resume(throwing: Failure(description: goodbye))
        case .rejected(let why): waiting.resume(throwing: Failure(description: why))
        }
    }

    private func receive(_ event: PluginLink.Event) {
        switch event {
        case .message, .malformed:
            guard handshake != nil else {
                let check = HelloCheck(first: event)
                handshake = check
                judge(check)
                return
            }
            guard case .message(let message) = event else { return }
            switch message {
            case .response(let id, let result):
                pending.remove(id)?.continuation.resume(with: result.mapError { $0 })
            case .ping(let id):
                link?.send(.pong(id: id))
            default: break
            }
        case .stderr(let line):
            stderr.append(line)
        case .exited(let exited):
            exit = exited
            let why = failure(exited)
            hello?.resume(throwing: why)
            hello = nil
            for entry in pending.removeAll() { entry.continuation.resume(throwing: why) }
        case .started, .oversized, .unterminated:
            break
        }
    }

    private func failure(_ exit: ChildExit) -> Failure {
        Failure(description: "plugin \(exit): \(stderr.suffix(3).joined(separator: " | "))")
    }
}
