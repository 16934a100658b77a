import FoundationEssentials
import PiRelaySDK
import Synchronization

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

/// Runs pi briefly the way sessions run it, for `doctor`: where it is, its version, and whether
/// `pi --mode rpc` answers `get_state` in time. Through `ChildProcess`, like every child.
package struct PiProbe: Sendable {
    package let settings: PiSettings
    /// Where the rpc check runs pi (an empty scratch folder: pi reads project settings from its cwd).
    package let workingDirectory: String

    /// The executable `command` names: itself when it has a slash, else the first match in PATH.
    package static func locate(_ command: String, path: String?) -> String? {
        if command.contains("/") { return FileManager.default.isExecutableFile(atPath: command) ? command : nil }
        for folder in (path ?? "").split(separator: ":") where !folder.isEmpty {
            let candidate = folder + "/" + command
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// What a probe saw: stdout lines, the stderr tail, and how it ended.
    package final class Transcript: Sendable {
        private let state = Mutex<(lines: [[UInt8]], stderr: [String], pid: Int32?, timedOut: Bool)>(([], [], nil, false))
        private let answered: AsyncStream<Void>.Continuation
        package let answers: AsyncStream<Void>

        package init() { (answers, answered) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1)) }

        package func record(_ event: ChildEvent) {
            switch event {
            case .started(let pid): state.withLock { $0.pid = pid }
            case .stdout(.line(let bytes)):
                state.withLock { $0.lines.append(bytes) }
                answered.yield()
            case .stderr(let line): state.withLock { $0.stderr = Array(($0.stderr + [line]).suffix(8)) }
            default: break
            }
        }

        /// The child is gone (or never started): nothing more will come.
        package func ended() { answered.finish() }

        /// The deadline passed: the child is ended.
        package func timeOut() {
            let pid = state.withLock { state in
                state.timedOut = true
                return state.pid
            }
            if let pid { ChildProcess.signalGroup(pid, SIGKILL) }
        }

        package var timedOut: Bool { state.withLock { $0.timedOut } }

        package var lines: [[UInt8]] { state.withLock { $0.lines } }
        package var stderr: [String] { state.withLock { $0.stderr.filter { !$0.allSatisfy(\.isWhitespace) } } }
        package var pid: Int32? { state.withLock { $0.pid } }
    }

    /// `pi --version`'s first line; nil (with why) when it fails.
    package func version(timeout: Duration) async -> (version: String?, problem: String?) {
        let (transcript, exit) = await run(arguments: ["--version"], timeout: timeout) { _, _ in false }
        let first = transcript.lines.first.map { String(decoding: $0, as: UTF8.self).trimmingInlineSpace() }
        if let first, !first.isEmpty, exit == .exited(0) { return (first, nil) }
        return (nil, Self.describe(exit, transcript: transcript, timeout: timeout))
    }

    /// pi's `get_state` answer in RPC mode; nil (with why) when there is none in time.
    package func rpcState(timeout: Duration) async -> (state: JSONValue?, problem: String?) {
        let request: JSONValue = ["id": "doctor", "type": "get_state"]
        let (transcript, exit) = await run(arguments: settings.arguments(sessionFile: nil), timeout: timeout, send: request) { lines, _ in
            lines.contains { Self.isStateAnswer($0) }
        }
        if let answer = transcript.lines.first(where: Self.isStateAnswer).flatMap({ try? JSONValue.parse(bytes: $0) }) {
            if answer["success"]?.boolValue == true { return (answer["data"] ?? [:], nil) }
            return (nil, "pi refused get_state: \(answer["error"]?.stringValue ?? "no reason given")")
        }
        return (nil, Self.describe(exit, transcript: transcript, timeout: timeout))
    }

    private static func isStateAnswer(_ line: [UInt8]) -> Bool {
        guard let json = try? JSONValue.parse(bytes: line) else { return false }
        return json["type"] == "response" && json["command"] == "get_state"
    }

    private static func describe(_ exit: ChildExit?, transcript: Transcript, timeout: Duration) -> String {
        let said = transcript.stderr.isEmpty ? "" : "; it said: " + transcript.stderr.joined(separator: " / ")
        if transcript.timedOut { return "no answer within \(Int(timeout.inSeconds)) s\(said)" }
        return "pi " + (exit.map { "\($0)" } ?? "ended without answering") + said
    }

    /// Runs pi with `arguments` until `done` says so, it exits, or `timeout` passes; then ends it.
    private func run(
        arguments: [String], timeout: Duration, send request: JSONValue? = nil,
        done: @escaping @Sendable ([[UInt8]], [String]) -> Bool
    ) async -> (Transcript, ChildExit?) {
        let transcript = Transcript()
        let input = ChildInput()
        let spec = ChildSpec(
            executable: settings.command, arguments: arguments, environment: settings.childEnvironment, workingDirectory: workingDirectory)
        if let request { input.send(request.serializedBytes() + [0x0A]) }
        return await withTaskGroup(of: ChildExit?.self) { group in
            group.addTask {
                let exit = await ChildProcess.run(spec, input: input, events: ChildEventSink { transcript.record($0) })
                transcript.ended()
                return exit
            }
            group.addTask {
                let waited = await withDeadline(timeout, onTimeout: { transcript.timeOut() }) {
                    for await _ in transcript.answers where done(transcript.lines, transcript.stderr) { return true }
                    return false
                }
                // Answered: pi has nothing more to do here. Its stdin closes; a pi that lingers is ended.
                if waited {
                    input.finish()
                    try? await Task.sleep(for: .seconds(2))
                    if let pid = transcript.pid { ChildProcess.signalGroup(pid, SIGKILL) }
                }
                return nil
            }
            var exit: ChildExit?
            for await result in group { if let result { exit = result } }
            return (transcript, exit)
        }
    }
}
