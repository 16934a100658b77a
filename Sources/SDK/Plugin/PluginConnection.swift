/// The plugin's side of the link: send requests and notifications to the supervisor.
public actor PluginConnection {
    private let writer: FDWriter
    private var nextID = 0
    private var pending: [String: CheckedContinuation<JSONValue, any Error>] = [:]
    private var closed = false

    init(writer: FDWriter) {
        self.writer = writer
    }

    /// Sends a request and waits for its response, failing with `RemoteError.timeout` after `timeout`.
    public func request(_ method: String, params: JSONValue = [:], timeout: Duration = .seconds(30)) async throws -> JSONValue {
        if closed { throw RemoteError(code: .unavailable, message: "connection to pi-relayd closed") }
        nextID += 1
        let id = "p\(nextID)"
        writer.send(WireMessage.request(id: id, method: method, params: params, deadlineMs: timeout.inMilliseconds).encodedLine())
        return try await withDeadline(
            timeout,
            onTimeout: { [weak self] in
                await self?.fail(id, RemoteError.timeout("\(method) got no response within \(timeout)"))
            }
        ) {
            try await withCheckedThrowingContinuation { cont in
                pending[id] = cont
            }
        }
    }

    /// Sends a request of the protocol and decodes its result (`.chatMessage`, `.chatCommand`, …).
    public func request<Params, Result>(
        _ method: RequestMethod<Params, Result>, _ params: Params, timeout: Duration = .seconds(30)
    ) async throws -> Result {
        try Result(json: try await request(method.name.rawValue, params: params.json, timeout: timeout))
    }

    /// Sends a notification; nothing answers it.
    public func notify(_ method: String, params: JSONValue = [:]) {
        writer.send(WireMessage.notify(method: method, params: params).encodedLine())
    }

    /// Sends a notification of the protocol (`.federationMachines`, …).
    public func notify<Params>(_ method: NotifyMethod<Params>, _ params: Params) {
        notify(method.name.rawValue, params: params.json)
    }

    func send(_ message: WireMessage) {
        writer.send(message.encodedLine())
    }

    func resolve(_ id: String, _ result: Result<JSONValue, RemoteError>) {
        guard let continuation = pending.removeValue(forKey: id) else { return }
        switch result {
        case .success(let value): continuation.resume(returning: value)
        case .failure(let error): continuation.resume(throwing: error)
        }
    }

    func fail(_ id: String, _ error: RemoteError) {
        pending.removeValue(forKey: id)?.resume(throwing: error)
    }

    func close() {
        closed = true
        for (_, c) in pending { c.resume(throwing: RemoteError(code: .unavailable, message: "connection to pi-relayd closed")) }
        pending.removeAll()
    }
}
