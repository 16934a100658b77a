import Foundation
import PiRelaySDK

/// Runs one plugin directly, without the daemon, for CLI commands such as `render`: handshake,
/// requests, shutdown.
actor PluginClient {
    private let input = ChildInput()
    private var pending: [String: CheckedContinuation<JSONValue, any Error>] = [:]
    private var hello: CheckedContinuation<Hello, any Error>?
    private var helloValue: Hello?
    private var exit: ChildExit?
    private var next = 0
    private var stderr: [String] = []
    private var task: Task<Void, Never>?

    struct Failure: Error, CustomStringConvertible { let description: String }

    init() {}

    /// Starts the plugin executable.
    func spawn(path: String, workingDirectory: String) {
        let spec = ChildSpec(
            executable: path, environment: ["PI_RELAY_PLUGIN": "1", "PI_RELAY_PROTOCOL": "1"],
            workingDirectory: workingDirectory)
        let input = input
        // Unstructured on purpose: the child runs for the client's lifetime, across many calls.
        task = Task {
            let (events, sink) = AsyncStream<ChildEvent>.makeStream()
            // One consumer: the child's events are handled in the order it produced them.
            async let handled: Void = self.receive(all: events)
            let exit = await ChildProcess.run(spec, input: input, events: ChildEventSink { sink.yield($0) })
            sink.finish()
            await handled
            await self.exited(exit)
        }
    }

    private func receive(all events: AsyncStream<ChildEvent>) async {
        for await event in events { receive(event) }
    }

    /// Waits for the hello, then sends the welcome.
    func start(config: JSONValue, stateDir: String, timeout: Duration = .seconds(10)) async throws -> Hello {
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            await self?.failHello("no hello within \(timeout)")
        }
        defer { timer.cancel() }
        let h: Hello
        if let helloValue { h = helloValue } else { h = try await withCheckedThrowingContinuation { hello = $0 } }
        send(.welcome(Welcome(plugin: h.name, config: config, stateDir: stateDir, spoolDir: stateDir, home: stateDir)))
        return h
    }

    func request<Params, Result>(_ method: RequestMethod<Params, Result>, _ params: Params) async throws -> Result {
        try Result(json: try await request(method.name.rawValue, params.json))
    }

    func request(_ method: String, _ params: JSONValue) async throws -> JSONValue {
        if let exit { throw Failure(description: "plugin \(exit): \(stderr.suffix(3).joined(separator: " | "))") }
        next += 1
        let id = "c\(next)"
        send(.request(id: id, method: method, params: params, deadlineMs: 30_000))
        return try await withCheckedThrowingContinuation { pending[id] = $0 }
    }

    func stop() async {
        send(.shutdown(graceMs: 1000))
        input.finish()
        await task?.value
    }

    private func send(_ m: WireMessage) {
        input.send(m.encodedLine())
    }

    private func failHello(_ why: String) {
        hello?.resume(throwing: Failure(description: why))
        hello = nil
    }

    private func receive(_ e: ChildEvent) {
        switch e {
        case .stdout(.line(let bytes)):
            guard let m = try? WireMessage.decode(bytes) else { return }
            switch m {
            case .hello(let h):
                helloValue = h
                hello?.resume(returning: h)
                hello = nil
            case .response(let id, let result):
                switch result {
                case .success(let v): pending.removeValue(forKey: id)?.resume(returning: v)
                case .failure(let err): pending.removeValue(forKey: id)?.resume(throwing: err)
                }
            case .ping(let id):
                send(.pong(id: id))
            default: break
            }
        case .stderr(let line):
            stderr.append(line)
        default: break
        }
    }

    private func exited(_ e: ChildExit) {
        exit = e
        let why = Failure(description: "plugin \(e): \(stderr.suffix(3).joined(separator: " | "))")
        hello?.resume(throwing: why)
        hello = nil
        for (_, c) in pending { c.resume(throwing: why) }
        pending.removeAll()
    }
}
