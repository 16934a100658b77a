import Logging
import PiRelaySDK
import Testing

@testable import Supervisor

@Suite struct ConfigLoaderTests {
    static let fullConfig = """
        pi:
          command: /opt/pi/bin/pi
          args: [--model, sonnet, 3]
          env: {PI_THEME: dark, RETRIES: 3}
          agentDir: ~/agents
          startTimeoutSeconds: 30
          dialogTimeoutSeconds: 0.5
        plugins:
          disabled: [attachments]
          handshakeTimeoutSeconds: 15
          pingIntervalSeconds: 2.5
          pingTimeoutSeconds: 8
          outboxLimit: 50
          maxLineBytes: 1_048_576
          restart:
            immediateRestarts: 2
            initialBackoffMs: 250
            maxBackoffMs: 10000
            jitter: 0
            crashLoopCount: 3
            crashLoopWindowSeconds: 60
            healthyResetSeconds: 30
          shutdownGraceMs: 1500
        logs:
          level: debug
          maxBytes: 0x100000
          keep: 0
        sessions:
          historyEvents: 500
          historyBytes: 65536
          defaultCwd: /srv/work
          busyPolicy: steer
          spawnLimit: 5
        discord:
          tokenEnv: MY_DISCORD_TOKEN
          allowedUsers: [123456789012345678, "876543210987654321"]
          guilds: ["111"]
          channels:
            - {id: 222333444555666777, cwd: ~/src/api, name: api}
            - id: "999"
          requireMention: false
          apiBase: http://127.0.0.1:8080/api/v10
          proxy: socks5h://127.0.0.1:1080
        formatter:
          showThinking: yes
          maxChunks: 3
        """

    @Test func readsEveryKeyOfAFullConfig() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(
            yaml: Self.fullConfig, knownPlugins: ["discord", "formatter"],
            environment: ["HOME": "/home/me", "MY_DISCORD_TOKEN": "x"])
        var expected = Config()
        expected.pi = PiSettings(
            command: "/opt/pi/bin/pi", args: ["--model", "sonnet", "3"],
            env: ["PI_THEME": "dark", "RETRIES": "3"], agentDir: "/home/me/agents",
            startTimeout: .seconds(30), dialogTimeout: .milliseconds(500))
        expected.plugins = PluginSettings(
            disabled: ["attachments"], handshakeTimeout: .seconds(15), pingInterval: .milliseconds(2500),
            pingTimeout: .seconds(8), outboxLimit: 50, maxLineBytes: 1_048_576,
            restart: RestartSettings(
                immediateRestarts: 2, initialBackoff: .milliseconds(250), maxBackoff: .seconds(10), jitter: 0,
                crashLoopCount: 3, crashLoopWindow: .seconds(60), healthyReset: .seconds(30)),
            shutdownGrace: .milliseconds(1500))
        expected.logs = LogSettings(level: .debug, maxBytes: 1_048_576, keep: 0)
        expected.sessions = SessionSettings(
            historyEvents: 500, historyBytes: 65536, defaultCwd: "/srv/work",
            busyPolicy: .steer, spawnLimit: 5)
        expected.pluginSections = [
            "formatter": ["showThinking": true, "maxChunks": 3],
            "discord": [
                "tokenEnv": "MY_DISCORD_TOKEN",
                "allowedUsers": ["123456789012345678", "876543210987654321"],
                "guilds": ["111"],
                "channels": [["id": "222333444555666777", "cwd": "/home/me/src/api", "name": "api"], ["id": "999"]],
                "requireMention": false,
                "apiBase": "http://127.0.0.1:8080/api/v10",
                "proxy": "socks5h://127.0.0.1:1080",
            ],
        ]
        // The sections as read from the file, kept for the check at each plugin's hello.
        expected.pluginSources = loaded.config.pluginSources
        #expect(loaded.config == expected)
        #expect(loaded.warnings == [])
        #expect(loaded.notConfigured == [])
        #expect(loaded.path == home.configPath)
        #expect(loaded.config.pi.arguments(sessionFile: nil) == ["--mode", "rpc", "--model", "sonnet", "3"])
        #expect(loaded.config.pi.arguments(sessionFile: "/s/a.jsonl") == ["--mode", "rpc", "--session", "/s/a.jsonl", "--model", "sonnet", "3"])
        #expect(
            loaded.config.pi.childEnvironment == [
                "PI_THEME": "dark", "RETRIES": "3",
                "PI_CODING_AGENT_DIR": "/home/me/agents", "PI_RELAYD_CHILD": "1",
            ])
    }

    @Test func missingFileGivesDefaultsAndSaysWhatIsNotConfigured() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(knownPlugins: ["discord", "formatter"])
        #expect(loaded.config == Config())
        #expect(loaded.path == nil)
        #expect(loaded.warnings == [])
        #expect(loaded.dotenv == [:])
        #expect(
            loaded.notConfigured == [
                "no config.yaml: using defaults (create \(home.configPath) to change them)",
                "discord: no bot token (set DISCORD_BOT_TOKEN or discord.tokenEnv, or run pi-relayd setup discord)",
                "discord: no allowed users configured, so only users paired with pi-relayd pair discord get answers (or add Discord user ids to discord.allowedUsers or DISCORD_ALLOWED_USERS)",
            ])
    }

    @Test func defaultsMatchTheDocumentedValues() {
        let c = Config()
        #expect(c.pi.command == "pi" && c.pi.args == [] && c.pi.env == [:] && c.pi.agentDir == nil)
        #expect(c.pi.startTimeout == .seconds(20) && c.pi.dialogTimeout == nil)
        #expect(c.plugins.disabled == [] && c.plugins.handshakeTimeout == .seconds(10))
        #expect(c.plugins.pingInterval == .seconds(5) && c.plugins.pingTimeout == .seconds(10))
        #expect(c.plugins.outboxLimit == 1000 && c.plugins.maxLineBytes == 8_388_608)
        #expect(
            c.plugins.restart
                == RestartSettings(
                    initialBackoff: .milliseconds(500), maxBackoff: .seconds(30),
                    jitter: 0.2, crashLoopCount: 5, crashLoopWindow: .seconds(180),
                    healthyReset: .seconds(10)))
        #expect(c.plugins.shutdownGrace == .seconds(3))
        #expect(c.logs.level == .info && c.logs.maxBytes == 10_485_760 && c.logs.keep == 5)
        #expect(c.sessions.historyEvents == 2000 && c.sessions.historyBytes == 4_194_304)
        #expect(c.sessions.defaultCwd == nil && c.sessions.busyPolicy == .followUp)
        // A plugin's defaults are its own; the bot token's variable is declared in its schema.
        #expect(BundledHellos.byName["discord"]?.config?.secrets.first?.secret.variable == "DISCORD_BOT_TOKEN")
        #expect(c.section(forPlugin: "formatter") == .object([:]))
    }

    @Test func emptyFileAndEmptySectionsMeanDefaults() throws {
        let home = ConfigTestHome()
        let empty = try home.load(yaml: "# all commented out\n")
        #expect(empty.config == Config())
        #expect(empty.path == home.configPath)
        #expect(empty.notConfigured == ["config.yaml is empty: using defaults"])

        let nulls = try home.load(yaml: "pi:\nplugins:\n  restart:\nlogs: ~\nsessions: {}\nformatter:\n")
        #expect(nulls.config.pi == PiSettings())
        #expect(nulls.config.plugins == PluginSettings())
        // A null plugin section is the same as none: the plugin gets {}.
        #expect(nulls.config.pluginSections == [:])
        #expect(nulls.config.section(forPlugin: "formatter") == .object([:]))
        #expect(nulls.warnings == [])
    }

    @Test func bigDiscordIdsStayExact() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(
            yaml: """
                discord:
                  allowedUsers: [18446744073709551615, 123456789012345678, '42']
                  guilds: [987654321987654321]
                  channels: [{id: 112233445566778899}]
                telegram:
                  chat: 123456789012345678
                  small: 42
                """, knownPlugins: ["discord"])
        let section = loaded.config.section(forPlugin: "discord")
        #expect(section["allowedUsers"] == ["18446744073709551615", "123456789012345678", "42"])
        #expect(section["guilds"] == ["987654321987654321"])
        #expect(section["channels"]?[0]?["id"] == "112233445566778899")
        // Outside the Discord section a number a Double cannot hold exactly arrives as its text.
        #expect(loaded.config.section(forPlugin: "telegram") == ["chat": "123456789012345678", "small": 42])
    }

    @Test func aliasesAndMergeKeysWorkInConfig() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(
            yaml: """
                x-channel: &channel {cwd: /srv, name: shared}
                x-users: &users [111, 222]
                discord:
                  allowedUsers: *users
                  channels:
                    - <<: *channel
                      id: 1
                    - <<: *channel
                      id: 2
                      name: second
                """, knownPlugins: ["discord"], environment: ["HOME": "/h", "DISCORD_BOT_TOKEN": "t"])
        let discord = loaded.config.section(forPlugin: "discord")
        #expect(discord["allowedUsers"] == ["111", "222"])
        #expect(
            discord["channels"] == [
                ["id": "1", "cwd": "/srv", "name": "shared"],
                ["id": "2", "cwd": "/srv", "name": "second"],
            ])
        // `x-` keys exist to hold anchors, so they are not reported as unknown.
        #expect(loaded.warnings == [])
    }

    @Test func pluginSectionsArePassedThroughForKnownAndAlwaysAcceptedNames() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(
            yaml: """
                weather:
                  city: Oslo
                  units: [c, f]
                slack: {requireMention: false}
                attachments: {imageMaxBytes: 1024}
                """, knownPlugins: ["weather"])
        #expect(loaded.warnings == [])
        #expect(
            loaded.config.pluginSections == [
                "weather": ["city": "Oslo", "units": ["c", "f"]],
                "slack": ["requireMention": false],
                "attachments": ["imageMaxBytes": 1024],
            ])
        #expect(loaded.config.section(forPlugin: "formatter") == .object([:]))
    }

    @Test func unknownKeysAreWarningsWithTheirPlace() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(
            yaml: """
                pi:
                  comand: pi
                plugins:
                  restart:
                    jiter: 0.1
                discrod:
                  tokenEnv: X
                weather: {}
                discord:
                  tokenEnv: DISCORD_BOT_TOKEN
                  allowedUser: [1]
                  channels:
                    - {id: 5, cwdd: /x}
                """, knownPlugins: ["discord"], environment: ["HOME": "/h", "DISCORD_BOT_TOKEN": "t"])
        let f = home.configPath
        // A plugin's section is checked at its hello, after the loader's own warnings: the
        // warnings are the same, their order the plugins' start order.
        #expect(
            loaded.warnings.sorted()
                == [
                    "\(f):13:15: unknown key 'cwdd' in discord.channels[0] (ignored; did you mean 'cwd'?)",
                    "\(f):11:3: unknown key 'allowedUser' in discord (ignored; did you mean 'allowedUsers'?)",
                    "\(f):6:1: unknown key 'discrod' (ignored: it is not a pi-relayd section and no installed plugin has this name; did you mean 'discord'?)",
                    "\(f):8:1: unknown key 'weather' (ignored: it is not a pi-relayd section and no installed plugin has this name)",
                    "\(f):2:3: unknown key 'comand' in pi (ignored; did you mean 'command'?)",
                    "\(f):5:5: unknown key 'jiter' in plugins.restart (ignored; did you mean 'jitter'?)",
                ].sorted())
        #expect(loaded.config.pi.command == "pi")
        #expect(loaded.config.pluginSections["weather"] == nil)
    }

    @Test func disabledDiscordNeedsNoTokenAndUnknownDisabledNamesAreNoted() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(
            yaml: "plugins:\n  disabled: [discord, wether]\n",
            knownPlugins: ["discord", "weather"])
        #expect(loaded.notConfigured == ["plugins.disabled: there is no plugin called 'wether'"])
    }

    @Test func tokenNoteNamesTheConfiguredVariableAndDotenvSatisfiesIt() throws {
        let home = ConfigTestHome()
        home.write("config.yaml", "discord:\n  tokenEnv: BOT_TOKEN\n  allowedUsers: [1]\n")
        let without = try home.load(knownPlugins: ["discord"])
        #expect(
            without.notConfigured == ["discord: no bot token (set BOT_TOKEN, the variable named by discord.tokenEnv, or run pi-relayd setup discord)"]
        )

        home.write(".env", "BOT_TOKEN=abc\n")
        let withDotenv = try home.load(knownPlugins: ["discord"])
        #expect(withDotenv.notConfigured == [])
        #expect(withDotenv.dotenv == ["BOT_TOKEN": "abc"])

        let emptyInEnvironment = try home.load(knownPlugins: ["discord"], environment: ["BOT_TOKEN": ""])
        #expect(emptyInEnvironment.dotenv == [:])
        #expect(
            emptyInEnvironment.notConfigured == [
                "discord: no bot token (set BOT_TOKEN, the variable named by discord.tokenEnv, or run pi-relayd setup discord)"
            ])
    }

    @Test func homeWithTrailingSlashAndTildePaths() throws {
        let home = ConfigTestHome()
        // A bare ~ is YAML's null (so $HOME anyway); quoted, it is the path.
        home.write("config.yaml", "sessions:\n  defaultCwd: \"~\"\npi:\n  agentDir: ~/a\n  command: ~/bin/pi\n")
        let loaded = try ConfigLoader.load(home: home.path + "/", knownPlugins: [], environment: ["HOME": "/u"])
        #expect(loaded.path == home.configPath)
        #expect(loaded.config.sessions.defaultCwd == "/u")
        #expect(loaded.config.pi.agentDir == "/u/a")
        #expect(loaded.config.pi.command == "/u/bin/pi")
        #expect(
            loaded.config.pi.childEnvironment == ["PI_CODING_AGENT_DIR": "/u/a", "PI_RELAYD_CHILD": "1"],
            "the marker keeps a global extension passive")
    }

    @Test func allowedUsersFromTheEnvironmentCount() throws {
        let home = ConfigTestHome()
        let none = try home.load(knownPlugins: ["discord"], environment: ["DISCORD_BOT_TOKEN": "t", "DISCORD_ALLOWED_USERS": " , "])
        #expect(none.notConfigured.contains { $0.hasPrefix("discord: no allowed users") })
        home.write(".env", "DISCORD_ALLOWED_USERS=123, 456\n")
        let some = try home.load(knownPlugins: ["discord"], environment: ["DISCORD_BOT_TOKEN": "t"])
        #expect(some.notConfigured == ["no config.yaml: using defaults (create \(home.configPath) to change them)"])
    }

    @Test func yesAndNoAreAcceptedForSwitches() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(yaml: "discord:\n  requireMention: no\n")
        #expect(loaded.config.pluginSections["discord"]?["requireMention"] == .bool(false))
    }

    /// Defect a: the plugins read booleans, and libyaml hands `no` over as a string. The loader
    /// turns every switch of a bundled plugin into a boolean before the plugin sees it.
    @Test func switchesReachThePluginsAsBooleans() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(
            yaml: """
                discord:
                  requireMention: no
                formatter:
                  showThinking: yes
                  convertTables: off
                  toolsInFinal: On
                  maxChunks: 4
                weather:
                  metric: no
                """, knownPlugins: ["weather"])
        #expect(loaded.warnings == [])
        #expect(loaded.config.pluginSections["discord"]?["requireMention"] == .bool(false))
        #expect(
            loaded.config.pluginSections["formatter"] == [
                "showThinking": true, "convertTables": false, "toolsInFinal": true,
                "maxChunks": 4,
            ])
        #expect(loaded.config.pluginSections["weather"] == ["metric": "no"], "a plugin the daemon does not know gets what was written")
    }

    @Test func aSwitchThatIsNoSwitchStopsTheDaemonWithItsPlace() throws {
        let home = ConfigTestHome()
        let error = try #require(home.loadError(yaml: "formatter:\n  showThinking: sometimes\n"))
        #expect(error.description == "\(home.configPath):2:17: formatter.showThinking must be true or false, got a string")
    }

    /// Defect d: a typo in a bundled plugin's section warns like one in pi-relayd's own.
    @Test func typosInPluginSectionsWarnWithTheNearestKey() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(
            yaml: """
                formatter:
                  showThinkng: true
                attachments:
                  imageMaxByte: 10
                  colour: red
                discord:
                  requireMentions: false
                """)
        let f = home.configPath
        #expect(
            loaded.warnings.sorted()
                == [
                    "\(f):4:3: unknown key 'imageMaxByte' in attachments (ignored; did you mean 'imageMaxBytes'?)",
                    "\(f):5:3: unknown key 'colour' in attachments (ignored)",
                    "\(f):2:3: unknown key 'showThinkng' in formatter (ignored; did you mean 'showThinking'?)",
                    "\(f):7:3: unknown key 'requireMentions' in discord (ignored; did you mean 'requireMention'?)",
                ].sorted())
    }

    /// Defect b: `proxy: ""` is documented as "connect directly".
    @Test func anEmptyDiscordProxyMeansDirect() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(yaml: "discord:\n  proxy: \"\"\n")
        #expect(loaded.config.pluginSections["discord"]?["proxy"] == "")
    }

    /// Defect c: only what both libcurl and the gateway speak.
    @Test(arguments: ["https://proxy:443", "socks4://proxy:1080", "socks4a://proxy:1080"])
    func proxiesTheGatewayCannotSpeakAreRefused(_ url: String) throws {
        let home = ConfigTestHome()
        let error = try #require(home.loadError(yaml: "discord:\n  proxy: \(url)\n"))
        #expect(
            error.description.hasSuffix(
                "discord.proxy must be a proxy URL starting with one of: http://, socks5://, socks5h://, "
                    + "or \"\" for none (the gateway cannot use https:// or socks4 proxies)"), "\(error)")
    }

    /// The telegram section is checked by the daemon too and handed to the plugin as checked:
    /// ids as text (a group's negative), `~` expanded, YAML 1.1's `no` a boolean.
    @Test func theTelegramSectionIsCheckedAndNormalised() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(
            yaml: """
                telegram:
                  allowedUsers: [123456789, "987654321"]
                  requireMention: no
                  chats:
                    - {id: -1001234567890, cwd: ~/src/api, name: api}
                """, knownPlugins: ["telegram"], environment: ["HOME": "/home/me"])
        #expect(loaded.warnings == [])
        let section = try #require(loaded.config.pluginSections["telegram"])
        #expect(section["allowedUsers"] == ["123456789", "987654321"])
        #expect(section["requireMention"] == .bool(false))
        #expect(section["chats"]?[0]?["id"] == "-1001234567890" && section["chats"]?[0]?["cwd"] == "/home/me/src/api", "\(section)")
    }
}
