import PiRelaySDK
import Testing

@testable import WebPlugin

/// Which Host and Origin headers the dashboard answers (against DNS rebinding and cross-site
/// requests), read from config as a user writes it.
@Suite struct RequestRulesTests {
    static func rules(_ yaml: JSONValue = [:]) throws -> RequestRules { RequestRules(config: try WebConfig.load(yaml)) }

    @Test func loopbackNamesOnAnyPortAndNothingElse() throws {
        let rules = try Self.rules()
        for host in ["127.0.0.1:7780", "localhost:9000", "[::1]:7780", "LOCALHOST", "127.0.0.1"] { #expect(rules.allowsHost(host), "\(host)") }
        for host in ["evil.example", "evil.example:7780", "127.0.0.1.evil.example", "", "127.0.0.1:", "[::1", "localhost:80:80", "10.0.0.1:7780"] {
            #expect(!rules.allowsHost(host), "\(host)")
        }
        #expect(!rules.allowsHost(nil))
    }

    @Test func configuredNamesAreAllowed() throws {
        let rules = try Self.rules(["hosts": ["dash.example.net"]])
        #expect(rules.allowsHost("dash.example.net:7780"))
        #expect(!rules.allowsHost("other.example.net"))
    }

    @Test func originMustBeTheRequestsOwnSchemeAndHost() throws {
        let rules = try Self.rules()
        #expect(rules.allowsOrigin("http://127.0.0.1:7780", host: "127.0.0.1:7780"))
        #expect(rules.allowsOrigin("http://localhost:9000", host: "localhost:9000"))
        #expect(!rules.allowsOrigin(nil, host: "127.0.0.1:7780"))
        #expect(!rules.allowsOrigin("null", host: "127.0.0.1:7780"))
        #expect(!rules.allowsOrigin("http://evil.example", host: "127.0.0.1:7780"))
        #expect(!rules.allowsOrigin("https://127.0.0.1:7780", host: "127.0.0.1:7780"))
        #expect(!rules.allowsOrigin("http://127.0.0.1:7781", host: "127.0.0.1:7780"))
        // A rebinding page's Origin and Host agree, but its Host is not ours.
        #expect(!rules.allowsOrigin("http://evil.example:7780", host: "evil.example:7780"))
    }

    @Test func anAddressOthersCanReachNeedsTLSAndANameForLinks() throws {
        #expect(throws: PluginExit.self) { try WebConfig.load(["listen": "0.0.0.0:7780", "hosts": ["dash.example.net"]]) }
        #expect(throws: PluginExit.self) { try WebConfig.load(["listen": "0.0.0.0:7780", "tls": ["certificate": "/c.pem", "key": "/k.pem"]]) }
        #expect(throws: PluginExit.self) { try WebConfig.load(["listen": "127.0.0.1:7780", "tls": ["certificate": "/c.pem"]]) }
        #expect(throws: PluginExit.self) { try WebConfig.load(["listen": "7780"]) }
        let remote = try WebConfig.load(
            ["listen": "0.0.0.0:7443", "hosts": ["dash.example.net"], "tls": ["certificate": "/c.pem", "key": "/k.pem"]])
        #expect(remote.linkHost == "dash.example.net" && remote.usesTLS)
        #expect(try RequestRules(config: remote).allowsOrigin("https://dash.example.net:7443", host: "dash.example.net:7443"))
        let local = try WebConfig.load([:])
        #expect(local.listen == ListenAddress(host: "127.0.0.1", port: 7780) && !local.usesTLS)
        #expect(ListenAddress("[::1]:0") == ListenAddress(host: "::1", port: 0))
        #expect(ListenAddress("[::1]:0")?.isLoopback == true && ListenAddress("localhost:1")?.isLoopback == true)
        #expect(ListenAddress("127.0.0.1:70000") == nil && ListenAddress("::1:7780") == nil)
        // A name that starts like a loopback address is a name: it needs TLS like any other.
        #expect(ListenAddress("127.0.0.9:1")?.isLoopback == true && ListenAddress("127.lan.example.com:1")?.isLoopback == false)
        #expect(throws: PluginExit.self) { try WebConfig.load(["listen": "127.lan.example.com:7780"]) }
        #expect(ListenAddress("127.0.0.256:1")?.isLoopback == false && ListenAddress("127.0.0.1.example:1")?.isLoopback == false)
    }
}
