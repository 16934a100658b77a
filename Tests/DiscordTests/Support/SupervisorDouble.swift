import Foundation
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Plays pi-relayd for one plugin process: the handshake, canned answers to the plugin's
/// requests, deliveries and notifications, and a record of everything the plugin said.
actor SupervisorDouble {
    /// The answer to a plugin request: a result, or an error `{code, message}`.
    enum Answer: Sendable {
        case result(JSONValue)
        case error(String, String)
    }

    typealias Responder = @Sendable (_ method: String, _ params: JSONValue) async -> Answer

    let child: ChildProcess
    let stderrPath: String
    private let writer: FDWriter
    private var responder: Responder
    private var received: [JSONValue] = []
    private var ended = false
    private(set) var exitStatus: Int32?
    private(set) var hello: JSONValue?

    init(executable: String, environment: [String], stderrPath: String, responder: @escaping Responder) throws {
        child = try ChildProcess(path: executable, environment: environment, stderrPath: stderrPath)
        writer = FDWriter(fd: child.input)
        self.stderrPath = stderrPath
        self.responder = responder
    }

    /// Starts reading, waits for the hello and answers it with `welcome`. Returns the hello.
    func start(welcome: JSONValue) async throws -> JSONValue {
        let lines = FDLineReader.lines(fd: child.output)
        // Unstructured on purpose: the reader lives as long as the plugin's stdout is open.
        Task {
            for await event in lines {
                guard case .line(let bytes) = event, let message = try? JSONValue.parse(bytes: bytes) else { continue }
                self.got(message)
            }
            self.gotEOF()
        }
        guard let hello = await waitFor({ $0["type"] == "hello" }, timeout: .seconds(10)) else {
            throw SupervisorError(description: "no hello from the plugin; stderr: \(stderr())")
        }
        self.hello = hello
        send(welcome)
        return hello
    }

    func setResponder(_ r: @escaping Responder) { responder = r }

    func send(_ message: JSONValue) {
        writer.send(message.serializedBytes() + [0x0A])
    }

    func deliver(_ id: String, _ method: String, _ params: JSONValue) {
        send(["type": "deliver", "id": .string(id), "method": .string(method), "params": params])
    }

    func notify(_ method: String, _ params: JSONValue) {
        send(["type": "notify", "method": .string(method), "params": params])
    }

    /// Delivers and waits for the ack.
    func deliverAndWait(_ id: String, _ method: String, _ params: JSONValue, timeout: Duration = .seconds(30)) async -> Bool {
        deliver(id, method, params)
        return await waitForAck(id, timeout: timeout)
    }

    func waitForAck(_ id: String, timeout: Duration = .seconds(30)) async -> Bool {
        await waitFor({ $0["type"] == "ack" && $0["id"]?.stringValue == id }, timeout: timeout) != nil
    }

    func ackCount(_ id: String) -> Int {
        received.filter { $0["type"] == "ack" && $0["id"]?.stringValue == id }.count
    }

    /// Params of the plugin's requests with this method, in order.
    func requests(_ method: String) -> [JSONValue] {
        received.filter { $0["type"] == "request" && $0["method"]?.stringValue == method }.compactMap { $0["params"] }
    }

    func allRequests() -> [JSONValue] {
        received.filter { $0["type"] == "request" }
    }

    /// Waits until the plugin made `count` requests with this method.
    func waitForRequests(_ method: String, count: Int = 1, timeout: Duration = .seconds(20)) async -> [JSONValue] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let found = requests(method)
            if found.count >= count { return found }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return requests(method)
    }

    func request(_ method: String, _ params: JSONValue = [:], timeout: Duration = .seconds(10)) async -> JSONValue? {
        let id = "s\(received.count)-\(UInt32.random(in: 0...UInt32.max))"
        send(["type": "request", "id": .string(id), "method": .string(method), "params": params])
        return await waitFor({ $0["type"] == "response" && $0["id"]?.stringValue == id }, timeout: timeout)
    }

    /// Sends shutdown and returns the exit status.
    func shutdown() async -> Int32 {
        send(["type": "shutdown", "graceMs": 3000])
        return await finish()
    }

    /// Kills the plugin with SIGKILL, as a crash would.
    func kill9() async -> Int32 {
        child.signal(SIGKILL)
        return await finish()
    }

    func finish() async -> Int32 {
        if let exitStatus { return exitStatus }
        let status =
            await child.exitStatus(within: .seconds(15))
            ?? {
                child.signal(SIGKILL)
                return -1
            }()
        writer.finish()
        close(child.input)
        exitStatus = status
        return status
    }

    /// Waits for the plugin to exit by itself (a fatal error) and returns its status.
    func exited(within timeout: Duration) async -> Int32? {
        if let exitStatus { return exitStatus }
        guard let status = await child.exitStatus(within: timeout) else { return nil }
        writer.finish()
        close(child.input)
        exitStatus = status
        return status
    }

    nonisolated func stderr() -> String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    }

    var isEnded: Bool { ended }

    private func got(_ message: JSONValue) {
        received.append(message)
        guard message["type"] == "request", let id = message["id"], let method = message["method"]?.stringValue else { return }
        let params = message["params"] ?? [:]
        let responder = responder
        // Unstructured on purpose: a slow canned answer (deferral tests) must not hold up reading.
        Task {
            switch await responder(method, params) {
            case .result(let r): self.send(["type": "response", "id": id, "result": r])
            case .error(let code, let text): self.send(["type": "response", "id": id, "error": ["code": .string(code), "message": .string(text)]])
            }
        }
    }

    private func gotEOF() { ended = true }

    private func waitFor(_ match: (JSONValue) -> Bool, timeout: Duration) async -> JSONValue? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let m = received.first(where: match) { return m }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    struct SupervisorError: Error, CustomStringConvertible {
        let description: String
    }
}
