import Foundation
import Logging
import Synchronization
import Testing

@testable import PiRelaySDK

/// The plugin runtime, served over a pipe pair in this process: deliveries keep their order in
/// each lane, including those sent while the plugin was still being made; pings are answered;
/// a request the plugin answers at once is answered on the thread that read it.
@Suite struct PluginRuntimeTests {
    /// What the plugin saw, in order, per lane.
    static let handled = Mutex<[String: [Int]]>([:])

    struct LanePlugin: Plugin {
        static let manifest = PluginManifest(name: "lanes", version: "1", roles: ["test"], summary: "records deliveries per lane")

        init() {}

        init(context: PluginContext) async throws {
            // Deliveries sent meanwhile wait for the plugin, then keep their order; those sent
            // once it says it is made must not pass them.
            try await Task.sleep(for: .milliseconds(300))
            await context.connection.notify("made")
        }

        func lane(of method: String, params: JSONValue) -> String { params["lane"]?.stringValue ?? "" }

        func handle(_ request: PluginRequest) async throws -> JSONValue {
            if request.isDelivery {
                let lane = request.params["lane"]?.stringValue ?? ""
                // A lane that waits must not let its next delivery pass.
                if (request.params["n"]?.intValue ?? 0) % 7 == 0 { try await Task.sleep(for: .milliseconds(5)) }
                Self.record(lane, request.params["n"]?.intValue ?? -1)
                return .null
            }
            return ["thread": .string(Self.threadName())]
        }

        func answerAtOnce(_ request: PluginRequest) -> Result<JSONValue, RemoteError>? {
            if request.method == "refused" { return .failure(.invalidParams("refused at once")) }
            guard request.method == "quick" else { return nil }
            return .success(["thread": .string(Self.threadName())])
        }

        static func record(_ lane: String, _ n: Int) {
            PluginRuntimeTests.handled.withLock { $0[lane, default: []].append(n) }
        }

        static func threadName() -> String {
            (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        }
    }

    @Test func lanesKeepTheirOrderAndQuickRequestsAreAnsweredOnTheReader() async throws {
        let plugin = ServedPlugin(LanePlugin.self)
        let send = plugin.send(_:)
        let next = plugin.next
        try await plugin.welcome()
        // Most come while the plugin is made, the rest as soon as it says it is made, while the
        // runtime still works through the first; a request for `handle`, responses to nothing
        // and pings come between them.
        var sent = 0
        func deliveries(_ count: Int) {
            for _ in 0..<count {
                sent += 1
                send([
                    "type": "deliver", "id": .string("d\(sent)"), "method": "chat.post",
                    "params": ["lane": .string("l\(sent % 3)"), "n": JSONValue(sent)],
                ])
                if sent % 10 == 0 { send(["type": "ping", "id": .string("p\(sent)")]) }
                if sent % 15 == 0 { send(["type": "request", "id": .string("r\(sent)"), "method": "slow", "params": [:]]) }
                if sent % 20 == 0 { send(["type": "response", "id": "nobody", "result": [:]]) }
                // A line that is no message is skipped; the lines after it are served.
                if sent % 25 == 0 { plugin.send(raw: "not json\n") }
            }
        }
        deliveries(900)
        var early: [JSONValue] = []
        while true {
            let reply = try await next()
            if reply["type"] == "notify" && reply["method"] == "made" { break }
            early.append(reply)
        }
        deliveries(300)
        send(["type": "request", "id": "q", "method": "quick", "params": [:]])
        send(["type": "request", "id": "no", "method": "refused", "params": [:]])

        var errors: [String: JSONValue] = [:]
        var acks: Set<String> = []
        var pongs: Set<String> = []
        var answers: [String: JSONValue] = [:]
        while acks.count < 1200 || pongs.count < 120 || answers.count < 81 || errors.isEmpty {
            let reply = early.isEmpty ? try await next() : early.removeFirst()
            switch reply["type"]?.stringValue {
            case "ack": acks.insert(reply["id"]?.stringValue ?? "")
            case "pong": pongs.insert(reply["id"]?.stringValue ?? "")
            case "response" where reply["error"] != nil: errors[reply["id"]?.stringValue ?? ""] = reply["error"]
            case "response": answers[reply["id"]?.stringValue ?? ""] = reply["result"]
            default: Issue.record("unexpected \(reply)")
            }
        }
        #expect(acks == Set((1...1200).map { "d\($0)" }))
        #expect(errors["no"]?["code"] == "invalid_params", "a refusal answered at once is an error response: \(errors)")
        #expect(answers["q"]?["thread"]?.stringValue?.hasPrefix("fd-reader") == true, "answered by the thread that read it")
        #expect(answers["r15"]?["thread"]?.stringValue?.hasPrefix("fd-reader") == false, "a request for handle runs in the pool")
        let seen = Self.handled.withLock { $0 }
        for lane in 0..<3 {
            let order = seen["l\(lane)"] ?? []
            let passed = zip(order, order.dropFirst()).first { $0 >= $1 }
            #expect(
                order.count == 400 && passed == nil,
                "lane l\(lane) in the order sent: \(order.count) handled, first out of order: \(String(describing: passed))")
        }

        send(["type": "shutdown"])
        #expect(await plugin.served.value == 0)
    }

    /// The hand-over from the serving loop to the reader, step by step: a delivery read once the
    /// plugin is made must wait for those the loop still holds from before.
    @Test func aDeliveryReadOnceThePluginIsMadeWaitsForThoseTheLoopHolds() async throws {
        let writer = FDWriter(fd: open("/dev/null", O_WRONLY))
        defer { writer.finish() }
        let inbound = PluginInbound<LanePlugin>(writer: writer, contact: SupervisorContact(), logger: Logger(label: "lanes"))
        func read(_ n: Int) {
            let line: JSONValue = ["type": "deliver", "id": .string("d\(n)"), "method": "chat.post", "params": ["lane": "a", "n": JSONValue(n)]]
            inbound.read(.line(Array(line.serialized().utf8)))
        }
        read(1)
        read(2)
        inbound.ready(LanePlugin())
        read(3)
        var lanes = inbound.newLanes.makeAsyncIterator()
        var inputs = inbound.inputs.makeAsyncIterator()
        inbound.end(0)
        while case .message(let message) = await inputs.next() {
            #expect(inbound.take(message), "a delivery the loop takes goes to its lane")
        }
        read(4)
        inbound.closeLanes()
        var order: [Int] = []
        let lane = try #require(await lanes.next())
        for await message in lane.messages {
            if case .deliver(_, _, let params) = message { order.append(params["n"]?.intValue ?? 0) }
        }
        #expect(order == [1, 2, 3, 4])
        #expect(await lanes.next() == nil, "one lane")
    }

    /// Notifications taken at once, as they were read.
    static let takenAtOnce = Mutex<[Int]>([])

    struct AtOncePlugin: Plugin {
        static let manifest = PluginManifest(name: "at-once", version: "1", roles: ["test"], summary: "takes live views at once")

        init(context: PluginContext) async throws {}
        init() {}

        func lane(of method: String, params: JSONValue) -> String { params["lane"]?.stringValue ?? "" }

        func takeAtOnce(notification method: String, params: JSONValue) -> Bool {
            guard method == "chat.live" else { return false }
            PluginRuntimeTests.takenAtOnce.withLock { $0.append(params["n"]?.intValue ?? -1) }
            return true
        }

        func handle(_ request: PluginRequest) async throws -> JSONValue { .null }
    }

    /// A notification the plugin takes at once is taken on the reading thread only while nothing
    /// sent before it waits in its lane; otherwise it waits there, in order.
    @Test func aNotificationIsTakenAtOnceOnlyBehindAnEmptyLane() async throws {
        let writer = FDWriter(fd: open("/dev/null", O_WRONLY))
        defer { writer.finish() }
        let inbound = PluginInbound<AtOncePlugin>(writer: writer, contact: SupervisorContact(), logger: Logger(label: "at-once"))
        inbound.ready(AtOncePlugin())
        func read(_ line: JSONValue) { inbound.read(.line(Array(line.serialized().utf8))) }
        func live(_ n: Int, lane: String) -> JSONValue {
            ["type": "notify", "method": "chat.live", "params": ["lane": .string(lane), "n": JSONValue(n)]]
        }

        read(live(1, lane: "a"))
        read(["type": "deliver", "id": "d2", "method": "chat.post", "params": ["lane": "a", "n": 2]])
        read(live(3, lane: "a"))
        read(live(4, lane: "b"))
        read(["type": "notify", "method": "chat.typing", "params": ["lane": "b", "n": 5]])
        #expect(Self.takenAtOnce.withLock { $0 } == [1, 4], "lane a holds the post: its next view waits behind it")

        var lanes = inbound.newLanes.makeAsyncIterator()
        var inLanes: [String: [Int]] = [:]
        for _ in 0..<2 {
            let lane = try #require(await lanes.next())
            var messages = lane.messages.makeAsyncIterator()
            for _ in 0..<(lane.name == "a" ? 2 : 1) {
                switch await messages.next() {
                case .deliver(_, _, let params), .notify(_, let params): inLanes[lane.name, default: []].append(params["n"]?.intValue ?? -1)
                default: break
                }
                inbound.finished(lane.name)
            }
        }
        #expect(inLanes == ["a": [2, 3], "b": [5]])

        read(live(6, lane: "a"))
        read(live(7, lane: "b"))
        #expect(Self.takenAtOnce.withLock { $0 } == [1, 4, 6, 7], "both lanes are empty again")
        inbound.closeLanes()
    }
}
