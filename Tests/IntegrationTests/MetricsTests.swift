import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 16, metrics: the opt-in Prometheus endpoint of the real daemon, scraped over HTTP after a
/// prompt went through the fake messenger, the real formatter and the fake pi.
@Suite struct MetricsTests {
    @Test func aScrapeCountsWhatHappened() async throws {
        try await E2EChatHome.with { chat in
            let port = try LoopbackHTTP.freePort()
            var config = chat.config()
            config.extra = ["metrics:", "  listen: 127.0.0.1:\(port)", "  healthLogSeconds: 1"]
            let daemon = try await chat.start(config)
            let sid = try await chat.newBoundSession("counted")
            _ = try await chat.say("!scenario text 5")
            _ = try await chat.waitForFinal(1)

            // The fake messenger records the final before it acks it: the scrape that counts the
            // outbox waits for the ack to arrive.
            var scrape = try LoopbackHTTP.get(port: port, path: "/metrics")
            for _ in 0..<100 where PrometheusText(scrape.body)["pi_relayd_outbox_depth{plugin=\"fake-messenger\"}"] != 0 {
                try await Task.sleep(for: .milliseconds(50))
                scrape = try LoopbackHTTP.get(port: port, path: "/metrics")
            }
            #expect(scrape.status == 200, "\(scrape.head)")
            #expect(scrape.head.contains("text/plain; version=0.0.4"), "\(scrape.head)")
            let figures = PrometheusText(scrape.body)
            #expect(figures["pi_relayd_prompts_in_total{messenger=\"fake-messenger\"}"] == 1, "\(scrape.body)")
            #expect(figures["pi_relayd_answers_out_total{messenger=\"fake-messenger\"}"] == 1)
            #expect(figures["pi_relayd_runs_total"] == 1)
            #expect(figures["pi_relayd_sessions{state=\"idle\"}"] == 1)
            #expect(figures["pi_relayd_sessions{state=\"busy\"}"] == 0)
            #expect(figures["pi_relayd_open_questions"] == 0)
            #expect(figures["pi_relayd_hop_seconds_count{hop=\"messenger_to_pi\"}"] == 1)
            #expect(figures["pi_relayd_hop_seconds_count{hop=\"pi_to_messenger\"}"] == 1)
            let shownLive = chat.lives(runID: "\(sid)-1").isEmpty ? 0.0 : 1.0
            #expect(figures["pi_relayd_first_visible_seconds_count{messenger=\"fake-messenger\"}"] ?? 0 == shownLive)
            #expect(figures["pi_relayd_plugin_up{plugin=\"formatter\"}"] == 1)
            #expect(figures["pi_relayd_outbox_depth{plugin=\"fake-messenger\"}"] == 0)
            #expect(figures["pi_relayd_plugin_restarts_total{plugin=\"formatter\"}"] ?? 0 == 0)
            // The session's latencies as percentiles, the prompt queue, the timeouts.
            for kind in ["first_text", "final"] {
                let p99 = figures["pi_relayd_session_latency_seconds{kind=\"\(kind)\",quantile=\"0.99\",session=\"counted\"}"]
                #expect((p99 ?? -1) >= 0, "\(kind): \(scrape.body)")
            }
            #expect(figures["pi_relayd_prompt_queue_depth"] == 0 && figures["pi_relayd_prompt_queue_oldest_seconds"] == 0)

            // A crash is counted once the plugin is back.
            let formatter = try #require(try await daemon.plugins()["formatter"]?.pid)
            kill(formatter, SIGKILL)
            try await daemon.waitForPlugin("formatter", "is running again") { $0.state == "running" && $0.pid != nil && $0.pid != formatter }
            let after = PrometheusText(try LoopbackHTTP.get(port: port, path: "/metrics").body)
            #expect(after["pi_relayd_plugin_restarts_total{plugin=\"formatter\"}"] == 1, "\(after.lines)")

            // Only GET /metrics.
            #expect(try LoopbackHTTP.get(port: port, path: "/").status == 404)
            #expect(try LoopbackHTTP.request(port: port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").status == 405)

            // `status` shows the key figures and where the endpoint is.
            let status = try await chat.run(["status", "--json"]).json()
            #expect(status["metrics"]?.stringValue == "http://127.0.0.1:\(port)/metrics")
            #expect(status["figures"]?["promptsIn"]?["fake-messenger"]?.intValue == 1, "\(status)")
            #expect(status["figures"]?["runs"]?.intValue == 1)
            let latency = status["figures"]?["sessionLatency"]?["counted"]
            #expect(latency?["final"]?["count"]?.intValue == 1 && latency?["first_text"]?["count"]?.intValue == 1, "\(status)")
            let text = try await chat.run(["status"]).stdout
            #expect(text.contains("prompts in 1 (fake-messenger 1)"), "\(text)")
            #expect(text.contains("session counted first text p50 ") && text.contains("prompt queue 0, timeouts 0"), "\(text)")
            // The health line, every second here (healthLogSeconds: 1).
            try await waitUntil("a health line in the log", timeout: .seconds(10)) {
                chat.home.read("logs/pi-relayd.log").contains(
                    "health: 1 session (idle 1); prompt queue 0; timeouts 0; outbox 0; counted first text p50")
            }
            #expect(text.contains("metrics: http://127.0.0.1:\(port)/metrics"), "\(text)")
        }
    }

    /// The outbound path renders a run once for all the chats that show it alike: two channels
    /// watching one session cost one rendering of each live view and of the answer.
    @Test func twoChatsWatchingOneSessionShareEachRendering() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start()
            let sid = try await chat.newBoundSession("shared", channel: "c1")
            let watching = try await chat.inject("chat.command", ["chat": E2EChatHome.chat("c2"), "name": "use", "args": ["session": "shared"]])
            #expect(watching["text"]?.stringValue?.hasPrefix("Watching") == true, "\(watching)")
            _ = try await chat.say("!scenario slow 12 100", channel: "c1")
            let finals = try await waitFor("both channels have the answer", timeout: .seconds(60)) { () -> [JSONValue]? in
                let finals = chat.posts("final")
                return finals.count >= 2 ? finals : nil
            }
            #expect(Set(finals.compactMap { $0["target"]?["channel"]?.stringValue }) == ["c1", "c2"], "\(finals)")
            #expect(finals[0]["chunks"] == finals[1]["chunks"], "the same answer in both")
            let figures = try await chat.run(["status", "--json"]).json()["figures"]
            #expect(figures?["renders"]?["format.final"]?.intValue == 1, "one rendering of the answer: \(String(describing: figures))")
            let lives = chat.lives(runID: "\(sid)-1")
            let rendered = figures?["renders"]?["format.live"]?.intValue ?? 0
            #expect(
                rendered > 0 && lives.count == 2 * rendered, "each view rendered once and shown in both: \(rendered) renderings, \(lives.count) views"
            )
        }
    }

    @Test func nothingListensUnlessConfigured() async throws {
        try await E2EChatHome.with { chat in
            let daemon = try await chat.start()
            let status = try await chat.run(["status", "--json"]).json()
            #expect(status["metrics"] == .null, "\(status)")
            #expect(try await chat.run(["status"]).stdout.contains("metrics: off"))
            #expect(try LoopbackHTTP.listeningSockets(of: daemon.pid).isEmpty, "the daemon listens on TCP")
        }
    }
}
