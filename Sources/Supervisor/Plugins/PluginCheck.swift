import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Plays the supervisor against one executable and reports each protocol rule it keeps or
/// breaks. Used by `pi-relayd plugin check`.
struct PluginCheck {
    struct Result: Sendable {
        var name: String
        var passed: Bool
        var detail: String
    }

    let path: String

    func run() async -> [Result] {
        var results: [Result] = []
        let byHand = await runByHand()
        results.append(byHand)
        results.append(contentsOf: await runAsPlugin())
        return results
    }

    /// Started by hand (no PI_RELAY_PLUGIN), a plugin says what it is and exits 64.
    private func runByHand() async -> Result {
        let child = CheckedChild()
        let link = PluginLink(path: path, workingDirectory: UserFolders.temporary, asPlugin: false)
        link.close()
        let running = Task { await Self.run(link, into: child) }
        let timer = Task {
            try await Task.sleep(for: .seconds(5)); await child.killAll()
        }
        let exit = await running.value
        timer.cancel()
        let said = await child.stderrLines.first ?? ""
        if exit == .exited(64) {
            return Result(name: "run by hand: explains itself and exits 64", passed: true, detail: String(said.prefix(100)))
        }
        return Result(name: "run by hand: explains itself and exits 64", passed: false, detail: "\(exit)")
    }

    /// Runs the child with its events added to `child` one by one, in the order they came.
    private static func run(_ link: PluginLink, into child: CheckedChild) async -> ChildExit {
        async let added: Void = { for await event in link.events { await child.add(event) } }()
        let exit = await link.run()
        await added
        return exit
    }

    private func runAsPlugin() async -> [Result] {
        var results: [Result] = []
        let stateDir = UserFolders.temporary + "/pi-relayd-check-\(getpid())"
        try? FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: stateDir) }
        let child = CheckedChild()
        let link = PluginLink(path: path, workingDirectory: stateDir)
        let running = Task { await Self.run(link, into: child) }
        func send(_ message: WireMessage) { link.send(message) }
        defer { link.close() }

        guard let first = await child.nextLine(within: .seconds(10)) else {
            let exited = await child.exit
            results.append(
                Result(
                    name: "hello within 10 s", passed: false,
                    detail: exited.map { "exited before its hello (\($0))" } ?? "no line on stdout"))
            await child.killAll()
            _ = await running.value
            return results
        }
        let hello: Hello
        switch HelloCheck(first: first) {
        case .accepted(let said), .incompatible(let said, _): hello = said
        case .rejected(let why):
            results.append(
                Result(
                    name: "hello within 10 s", passed: false,
                    detail: why.replacing("expected a hello as the first line, got", with: "first line is not a hello")))
            await child.killAll()
            _ = await running.value
            return results
        }
        results.append(
            Result(name: "hello within 10 s", passed: true, detail: "\(hello.name) \(hello.version), roles \(hello.roles.joined(separator: ","))"))
        results.append(
            Result(
                name: "protocol version \(WireMessage.protocolVersion)", passed: hello.protocol == WireMessage.protocolVersion,
                detail: "says \(hello.protocol)"))
        send(.welcome(Welcome(plugin: hello.name, stateDir: stateDir, spoolDir: stateDir, home: stateDir)))

        send(.ping(id: "check-ping"))
        let pong = await child.nextMessage(within: .seconds(5)) {
            if case .pong(let id) = $0 { return id == "check-ping" }; return false
        }
        results.append(Result(name: "answers ping with pong", passed: pong != nil, detail: pong == nil ? "no pong within 5 s" : ""))

        send(.request(id: "check-1", method: MethodName.status.rawValue, params: [:], deadlineMs: 5000))
        let status = await child.nextMessage(within: .seconds(5)) {
            if case .response(let id, _) = $0 { return id == "check-1" }; return false
        }
        results.append(Result(name: "answers a request (status)", passed: status != nil, detail: status == nil ? "no response within 5 s" : ""))

        send(.request(id: "check-2", method: "check.no-such-method", params: [:], deadlineMs: 5000))
        let unknown = await child.nextMessage(within: .seconds(5)) {
            if case .response(let id, _) = $0 { return id == "check-2" }; return false
        }
        var unknownOK = false
        var unknownDetail = "no response within 5 s"
        if case .response(_, .failure(let error))? = unknown {
            unknownOK = error.code == .methodNotFound
            unknownDetail = unknownOK ? "" : "error code \(error.code), expected method_not_found"
        } else if unknown != nil {
            unknownDetail = "answered with a result, expected error method_not_found"
        }
        results.append(Result(name: "unknown request → method_not_found", passed: unknownOK, detail: unknownDetail))

        send(.notify(method: "check.unknown-notification", params: [:]))
        send(.deliver(id: "check-d1", method: "check.unknown-delivery", params: [:]))
        let ack = await child.nextMessage(within: .seconds(5)) {
            if case .ack(let id) = $0 { return id == "check-d1" }; return false
        }
        results.append(Result(name: "acknowledges a delivery", passed: ack != nil, detail: ack == nil ? "no ack within 5 s" : ""))
        send(.deliver(id: "check-d1", method: "check.unknown-delivery", params: [:]))
        let again = await child.nextMessage(within: .seconds(5)) {
            if case .ack(let id) = $0 { return id == "check-d1" }; return false
        }
        results.append(Result(name: "acknowledges a duplicate delivery", passed: again != nil, detail: again == nil ? "no ack within 5 s" : ""))

        send(.shutdown(graceMs: 3000))
        link.close()
        let exit = await child.waitExit(within: .seconds(5))
        results.append(Result(name: "exits 0 after shutdown", passed: exit == .exited(0), detail: exit.map { "\($0)" } ?? "still running after 5 s"))
        if exit == nil { await child.killAll() }
        _ = await running.value

        let junk = await child.junk
        results.append(
            Result(
                name: "stdout carries protocol only", passed: junk.isEmpty,
                detail: junk.first.map { "non-protocol line: \($0)" } ?? ""))
        return results
    }
}

/// Collects what the checked child does, for waiting with deadlines.
private actor CheckedChild {
    var lines: [PluginLink.Event] = []
    var consumed = 0
    var stderrLines: [String] = []
    var exit: ChildExit?
    var pid: Int32?
    var junk: [String] = []

    func add(_ event: PluginLink.Event) {
        switch event {
        case .started(let started): pid = started
        case .message: lines.append(event)
        case .malformed(let preview, _):
            lines.append(event)
            junk.append(String(preview.prefix(80)))
        case .oversized, .unterminated: break
        case .stderr(let line): stderrLines.append(line)
        case .exited(let exited): exit = exited
        }
    }

    func killAll() {
        if let pid { ChildProcess.signalGroup(pid, SIGKILL) }
    }

    /// The next stdout line, decoded or not.
    func nextLine(within limit: Duration) async -> PluginLink.Event? {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if consumed < lines.count {
                consumed += 1
                return lines[consumed - 1]
            }
            if exit != nil { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    func nextMessage(within limit: Duration, _ match: (WireMessage) -> Bool) async -> WireMessage? {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            while consumed < lines.count {
                consumed += 1
                if case .message(let message) = lines[consumed - 1], match(message) { return message }
            }
            if exit != nil { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    func waitExit(within limit: Duration) async -> ChildExit? {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if let exit { return exit }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return exit
    }
}
