import Foundation
import Logging
import Testing

@testable import PiRelaySDK

/// A plugin served by `PluginRuntime` in this process over a pipe pair, and pi-relayd's end of
/// the pipes: what a test writes to the plugin and reads back from it.
final class ServedPlugin {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("runtime-" + UUID().uuidString).path
    private var toPlugin: [Int32] = [0, 0]
    private var fromPlugin: [Int32] = [0, 0]
    let served: Task<Int32, Never>
    private let name: String
    private var replies: AsyncStream<LineFramer.Event>.AsyncIterator

    init<P: Plugin>(_ plugin: P.Type) {
        name = P.manifest.name
        #expect(pipe(&toPlugin) == 0 && pipe(&fromPlugin) == 0)
        let (input, output) = (toPlugin[0], fromPlugin[1])
        served = Task { await PluginRuntime.serve(P.self, input: input, output: output, logger: Logger(label: P.manifest.name)) }
        replies = FDLineReader.lines(fd: fromPlugin[0], closingAtEnd: true).makeAsyncIterator()
    }

    deinit {
        close(toPlugin[1])
        try? FileManager.default.removeItem(atPath: folder)
    }

    func send(_ value: JSONValue) { send(raw: value.serialized() + "\n") }

    /// Bytes as they are, whatever they are (a line that is no message).
    func send(raw: String) {
        _ = Array(raw.utf8).withUnsafeBytes { write(toPlugin[1], $0.baseAddress, $0.count) }
    }

    func next() async throws -> JSONValue {
        guard case .line(let bytes) = try #require(await replies.next()) else { throw CancellationError() }
        return try JSONValue.parse(String(decoding: bytes, as: UTF8.self))
    }

    /// Reads the plugin's hello and sends the welcome, with the test's folder as its state.
    func welcome() async throws {
        #expect(try await next()["type"] == "hello")
        send([
            "type": "welcome", "protocol": 1, "plugin": .string(name), "config": [:],
            "stateDir": .string(folder), "spoolDir": .string(folder), "home": .string(folder), "sessions": [], "bindings": [],
        ])
    }
}
