import Testing

@testable import Supervisor

/// `metrics.listen` (issue 16): loopback only, and nothing when it is absent.
@Suite struct MetricsConfigTests {
    @Test(arguments: [
        ("127.0.0.1:9464", "127.0.0.1", 9464, MetricsAddress.Family.ipv4),
        ("127.0.0.53:1", "127.0.0.53", 1, .ipv4),
        ("localhost:9100", "127.0.0.1", 9100, .ipv4),
        ("[::1]:9464", "::1", 9464, .ipv6),
    ])
    func loopbackAddressesAreTaken(text: String, host: String, port: Int, family: MetricsAddress.Family) throws {
        let address = try MetricsAddress(parsing: text)
        #expect(address == MetricsAddress(host: host, port: port, family: family))
    }

    @Test(arguments: [
        ("0.0.0.0:9464", "only a loopback address"), ("192.168.1.5:9464", "only a loopback address"),
        ("10.0.0.1:80", "only a loopback address"), ("example.com:9464", "must be a loopback address"),
        ("[::]:9464", "must be a loopback address"), ("127.0.0.1", "must be HOST:PORT"), ("127.0.0.1:0", "port must be"),
        ("127.0.0.1:70000", "port must be"), ("127.0.0.1:http", "port must be"), ("[::1]9464", "must be HOST:PORT"),
    ])
    func otherAddressesAreRefused(text: String, reason: String) {
        #expect(throws: MetricsAddress.ParseError.self) { try MetricsAddress(parsing: text) }
        do { _ = try MetricsAddress(parsing: text) } catch { #expect(error.description.contains(reason), "\(error)") }
    }

    @Test func aWildcardAddressStopsTheStartWithItsPlace() throws {
        let home = ConfigTestHome()
        let error = try #require(home.loadError(yaml: "logs:\n  level: info\nmetrics:\n  listen: 0.0.0.0:9464\n"))
        #expect(
            error.description.hasSuffix(
                "config.yaml:4:11: metrics.listen only a loopback address is allowed (127.0.0.1, localhost or [::1]): metrics are not offered beyond this machine; put a reverse proxy with authentication in front to expose them"
            ), "\(error)")
    }

    @Test func metricsAreOffUnlessListenIsSet() throws {
        let home = ConfigTestHome()
        #expect(try home.load(yaml: "logs:\n  level: info\n").config.metrics.listen == nil)
        #expect(try home.load(yaml: "metrics:\n  listen: \"\"\n").config.metrics.listen == nil)
        let loaded = try home.load(yaml: "metrics:\n  listen: 127.0.0.1:9464\n  lisen: x\n")
        #expect(loaded.config.metrics.listen == MetricsAddress(host: "127.0.0.1", port: 9464, family: .ipv4))
        #expect(loaded.warnings.contains { $0.contains("lisen") && $0.contains("listen") }, "\(loaded.warnings)")
    }

    @Test func latencySamplesKeepTheRecentOnes() {
        var sample = LatencySample()
        #expect(sample.percentile(50) == nil)
        for milliseconds in 1...300 { sample.add(.milliseconds(milliseconds)) }
        #expect(sample.count == 300)
        #expect(sample.recent.count == LatencySample.capacity)
        // The oldest 44 were replaced: 45 ms to 300 ms remain.
        #expect(sample.percentile(0) == .milliseconds(45))
        #expect(sample.percentile(100) == .milliseconds(300))
        #expect(sample.percentile(50) == .milliseconds(172))
    }

    @Test func runningTotalsBecomeIncrements() {
        var totals = RunningTotals()
        #expect(totals.advance("restarts", "discord", to: 2) == 2)
        #expect(totals.advance("restarts", "discord", to: 2) == 0)
        #expect(totals.advance("restarts", "discord", to: 5) == 3)
        #expect(totals.advance("restarts", "telegram", to: 1) == 1)
        // A plugin restarted counts from zero again: all of its new total is new.
        #expect(totals.advance("restarts", "discord", to: 1) == 1)
    }
}
