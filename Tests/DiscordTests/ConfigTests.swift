import MessengerKit
import PiRelayHTTP
import PiRelaySDK
import Testing

@testable import DiscordPlugin

@Suite("Config")
struct ConfigTests {
    let env = ["DISCORD_BOT_TOKEN": "T0KEN.value.xyz"]

    func message(_ body: () throws -> DiscordConfig) -> String? {
        do {
            _ = try body()
            return nil
        } catch PluginExit.notConfigured(let why) {
            return why
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func defaults() throws {
        let c = try DiscordConfig.load([:], environment: env)
        #expect(c.token.value == "T0KEN.value.xyz")
        #expect(c.tokenEnv == "DISCORD_BOT_TOKEN")
        #expect(c.settings.allowedUsers.isEmpty)
        #expect(c.settings.requireMention)
        #expect(c.settings.apiBase == "https://discord.com/api/v10")
        #expect(c.settings.proxy == .direct)
        #expect(c.channels.isEmpty && c.guilds.isEmpty)
    }

    @Test func noTokenIsNotConfigured() {
        #expect(
            message { try DiscordConfig.load([:], environment: [:]) }
                == "no Discord bot token: set DISCORD_BOT_TOKEN (or discord.tokenEnv), or run pi-relayd setup discord")
        #expect(
            message { try DiscordConfig.load(["tokenEnv": "MY_BOT"], environment: env) }
                == "no Discord bot token: set MY_BOT (or discord.tokenEnv), or run pi-relayd setup discord")
        #expect(message { try DiscordConfig.load(["tokenEnv": "MY_BOT"], environment: ["MY_BOT": "  "]) } != nil)
    }

    @Test func aBotPrefixIsTolerated() throws {
        #expect(try DiscordConfig.load([:], environment: ["DISCORD_BOT_TOKEN": "Bot abc.def"]).token.value == "abc.def")
    }

    @Test func allSettings() throws {
        let c = try DiscordConfig.load(
            [
                "allowedUsers": ["140", 141], "guilds": ["110"], "requireMention": false,
                "channels": [["id": "120", "cwd": "/src/api", "name": "api"], "121"],
                "apiBase": "http://127.0.0.1:9/api/v10/", "proxy": "socks5h://u:p@127.0.0.1:1080",
            ], environment: env.merging(["DISCORD_ALLOWED_USERS": "142, 143,"]) { a, _ in a })
        #expect(c.settings.allowedUsers == ["140", "141", "142", "143"])
        #expect(c.guilds == ["110"])
        #expect(c.channels == [ChatSetting(id: "120", cwd: "/src/api", name: "api"), ChatSetting(id: "121")])
        #expect(!c.settings.requireMention)
        #expect(c.settings.apiBase == "http://127.0.0.1:9/api/v10")
        #expect(c.settings.proxy.url == "socks5h://u:p@127.0.0.1:1080")
        #expect(c.settings.proxy.redacted == "socks5h://***@127.0.0.1:1080")
        #expect(
            c.settings.proxy.endpoint?.host == "127.0.0.1" && c.settings.proxy.endpoint?.port == 1080
                && c.settings.proxy.endpoint?.scheme == "socks5h")
    }

    @Test func proxyComesFromTheEnvironmentUnlessConfigured() throws {
        let c = try DiscordConfig.load([:], environment: env.merging(["https_proxy": "http://proxy:3128", "NO_PROXY": "localhost"]) { a, _ in a })
        #expect(c.settings.proxy == ProxySetting(url: "http://proxy:3128", bypass: "localhost"))
        #expect(
            try DiscordConfig.load(["proxy": ""], environment: env.merging(["HTTPS_PROXY": "http://p:1"]) { a, _ in a }).settings.proxy.url == nil)
    }

    /// The gateway speaks plain HTTP CONNECT and SOCKS5 only: an https:// or SOCKS4 proxy would be
    /// spoken to wrongly, so the plugin says what to change instead of failing at connect time.
    @Test func proxiesTheGatewayCannotSpeakLeaveThePluginNotConfigured() {
        let fromEnvironment = message {
            try DiscordConfig.load([:], environment: env.merging(["HTTPS_PROXY": "https://u:secret@proxy:443"]) { a, _ in a })
        }
        #expect(
            fromEnvironment == "HTTPS_PROXY is a https:// proxy, which the gateway cannot use: use an http://, socks5:// "
                + "or socks5h:// proxy, or set discord.proxy to \"\" to connect directly")
        #expect(
            message { try DiscordConfig.load(["proxy": "socks4a://proxy:1080"], environment: env) }?
                .hasPrefix("discord.proxy is a socks4a:// proxy") == true)
        #expect(message { try DiscordConfig.load(["proxy": "SOCKS5H://proxy:1080"], environment: env) } == nil)
        #expect(
            message { try DiscordConfig.load([:], environment: env.merging(["HTTPS_PROXY": "proxy:3128"]) { a, _ in a }) } == nil,
            "no scheme is HTTP, as for curl")
    }

    @Test func noProxyIsHonouredForTheGateway() {
        let p = ProxySetting(url: "http://proxy:3128", bypass: "localhost, .internal.example,10.0.0.1")
        #expect(p.bypasses(host: "localhost"))
        #expect(p.bypasses(host: "gw.internal.example"))
        #expect(p.bypasses(host: "internal.example"))
        #expect(p.bypasses(host: "10.0.0.1"))
        #expect(!p.bypasses(host: "gateway.discord.gg"))
        #expect(ProxySetting(url: "http://p:1", bypass: "*").bypasses(host: "anything"))
        #expect(Gateway.host(of: "wss://gateway.discord.gg/?v=10&encoding=json") == "gateway.discord.gg")
        #expect(Gateway.host(of: "ws://127.0.0.1:9/resume-gw") == "127.0.0.1")
        #expect(Gateway.host(of: "wss://[::1]:443/") == "::1")
    }

    @Test func typeErrorsSayWhichKey() {
        #expect(message { try DiscordConfig.load(["allowedUsers": "140"], environment: env) }?.contains("discord.allowedUsers") == true)
        #expect(message { try DiscordConfig.load(["channels": [["cwd": "/x"]]], environment: env) }?.contains("discord.channels[0]") == true)
        #expect(message { try DiscordConfig.load(["guilds": ["general"]], environment: env) }?.contains("not a Discord id") == true)
        #expect(message { try DiscordConfig.load(["requireMention": "yes"], environment: env) }?.contains("requireMention") == true)
        #expect(message { try DiscordConfig.load(["apiBase": "discord.com"], environment: env) }?.contains("apiBase") == true)
        #expect(
            message { try DiscordConfig.load([:], environment: env.merging(["DISCORD_ALLOWED_USERS": "bob"]) { a, _ in a }) }?.contains(
                "DISCORD_ALLOWED_USERS") == true)
        // YAML without quotes turns a snowflake into a number that has already lost digits.
        #expect(
            message { try DiscordConfig.load(["channels": [1_200_000_000_000_000_001]], environment: env) }?.contains("put the id in quotes") == true)
        #expect(
            message { try DiscordConfig.load(["allowedUsers": [1_400_000_000_000_000_001]], environment: env) }?.contains("put the id in quotes")
                == true)
    }

    @Test func theTokenNeverPrints() {
        let token = BotToken(value: "secret.token.value")
        #expect("\(token)" == "Bot ***")
        #expect(String(reflecting: token) == "Bot ***")
        #expect(token.masking("closed: secret.token.value bad") == "closed: *** bad")
    }
}
