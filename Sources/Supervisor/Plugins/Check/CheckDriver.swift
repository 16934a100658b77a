import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

/// The driver of `plugin check --driver CMD`: a program that plays the user on the chat service
/// and reports what the bot posted there (docs/PROTOCOL.md §10, "The driver protocol"). One JSON
/// line in, exactly one JSON line back, in order.
package actor CheckDriver {
    /// What the driver said to one op.
    package enum Answer: Sendable {
        case done(JSONValue)
        /// The driver cannot do it: the step is skipped, never passed.
        case unsupported(String)
        case failed(String)
    }

    package nonisolated let input = ChildInput()
    package nonisolated let spec: ChildSpec
    private var lines: [[UInt8]] = []
    private var taken = 0
    private var stderrLines: [String] = []
    private var pid: Int32?
    package private(set) var exit: ChildExit?

    package init(command: String, workingDirectory: String) {
        spec = ChildSpec(executable: "/bin/sh", arguments: ["-c", command], workingDirectory: workingDirectory)
    }

    /// Runs the driver until it exits.
    package nonisolated func run() async -> ChildExit {
        let (events, sink) = AsyncStream<ChildEvent>.makeStream()
        async let added: Void = { for await event in events { await self.add(event) } }()
        let exit = await ChildProcess.run(spec, input: input, events: ChildEventSink { sink.yield($0) })
        sink.yield(.exited(exit))
        sink.finish()
        await added
        return exit
    }

    private func add(_ event: ChildEvent) {
        switch event {
        case .started(let started): pid = started
        case .stdout(.line(let bytes)): lines.append(bytes)
        case .stdout, .stdoutOversized: break
        case .stderr(let line): stderrLines.append(line)
        case .exited(let exited): exit = exited
        }
    }

    /// Sends `request` and waits for its answer.
    package func ask(_ request: JSONValue, within limit: Duration = .seconds(60)) async -> Answer {
        let op = request["op"]?.stringValue ?? "?"
        input.send(request.serializedBytes() + [0x0A])
        let end = ContinuousClock.now + limit
        while taken == lines.count {
            if let exit { return .failed("the driver \(exit) before answering \(op)\(stderrNote)") }
            if ContinuousClock.now >= end { return .failed("the driver did not answer \(op) within \(limit)\(stderrNote)") }
            try? await Task.sleep(for: .milliseconds(10))
        }
        taken += 1
        let line = lines[taken - 1]
        guard let answer = try? JSONValue.parse(bytes: line), answer.objectValue != nil else {
            return .failed("the driver answered \(op) with a line that is not a JSON object: \(String(decoding: line.prefix(100), as: UTF8.self))")
        }
        if let why = answer["unsupported"]?.stringValue { return .unsupported(why) }
        if let why = answer["error"]?.stringValue { return .failed("the driver failed \(op): \(why)") }
        return .done(answer)
    }

    /// End of input: the driver stops what it started and exits; after 10 s it is killed.
    package func close() async {
        input.finish()
        let end = ContinuousClock.now + .seconds(10)
        while exit == nil, ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(20)) }
        if exit == nil, let pid { ChildProcess.signalGroup(pid, SIGKILL) }
    }

    private var stderrNote: String {
        stderrLines.isEmpty ? "" : " (its stderr: \(stderrLines.suffix(3).joined(separator: " | ")))"
    }
}
