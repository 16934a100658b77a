import Testing

@testable import Supervisor

@Suite struct ConfigFileSafetyTests {
    @Test func dotenvReadableByOthersIsRefusedWithTheFix() throws {
        let home = ConfigTestHome()
        home.write(".env", "DISCORD_BOT_TOKEN=abc\n", mode: 0o644)
        let error = try #require(home.loadError())
        #expect(error.kind == .unsafeFile)
        #expect(error.line == nil)
        #expect(
            error.description
                == "refusing to read \(home.dotenvPath): it is readable by group or others (mode 0644); run: chmod 600 \(home.dotenvPath)")
    }

    @Test func dotenvWritableByGroupIsRefusedToo() throws {
        let home = ConfigTestHome()
        home.write(".env", "A=1\n", mode: 0o620)
        let error = try #require(home.loadError())
        #expect(
            error.description
                == "refusing to read \(home.dotenvPath): it is writable by group or others (mode 0620); run: chmod 600 \(home.dotenvPath)")
    }

    @Test func privateDotenvIsRead() throws {
        let home = ConfigTestHome()
        home.write(".env", "A=1\n", mode: 0o600)
        #expect(try home.load().dotenv == ["A": "1"])
        home.write(".env", "A=2\n", mode: 0o400)
        #expect(try home.load().dotenv == ["A": "2"])
    }

    @Test func configWithoutSecretsMayBeReadableByOthers() throws {
        let home = ConfigTestHome()
        home.write("config.yaml", "discord:\n  tokenEnv: DISCORD_BOT_TOKEN\n", mode: 0o644)
        let loaded = try home.load()
        #expect(loaded.config.pluginSections["discord"]?["tokenEnv"] == "DISCORD_BOT_TOKEN")
        #expect(loaded.warnings == [])
    }

    /// The dashboard's `tls.key` names a PEM file (CONFIG.md): a path, not a secret, so the
    /// documented config needs no 600 and the path is not masked in the log. A key written out
    /// under the same name still is one.
    @Test func aKeyFilesPathIsNoSecret() throws {
        let home = ConfigTestHome()
        home.write("config.yaml", "web:\n  tls:\n    certificate: /etc/ssl/relay.pem\n    key: /etc/ssl/relay-key.pem\n", mode: 0o644)
        let loaded = try home.load()
        #expect(loaded.warnings == [])
        #expect(SectionSecrets(loaded.config.pluginSections["web"] ?? [:]).literals == [])
        home.write("config.yaml", "web:\n  tls:\n    key: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n", mode: 0o644)
        #expect(try #require(home.loadError()).kind == .unsafeFile)
    }

    /// A token pasted where its variable's name goes (`keyEnv: sk-proj-…`, the plugin's schema
    /// cannot tell) is a secret written in config.yaml: the file must be private, the warning
    /// names the key and not the token, and the redactor masks it.
    @Test func aSecretPastedIntoAnEnvKeyIsASecret() throws {
        let home = ConfigTestHome()
        let pasted = "sk-proj-ConfigFileSafetyTests-1234"
        home.write("config.yaml", "attachments:\n  transcribe:\n    endpoint: https://api.openai.com/v1\n    keyEnv: \(pasted)\n", mode: 0o644)
        let error = try #require(home.loadError())
        #expect(error.kind == .unsafeFile && error.description.contains("attachments.transcribe.keyEnv at line 4"), "\(error)")
        #expect(error.description.contains("name its variable in attachments.transcribe.keyEnv)") && !error.description.contains(pasted))
        home.write("config.yaml", "attachments:\n  transcribe:\n    keyEnv: \(pasted)\n", mode: 0o600)
        let loaded = try home.load()
        #expect(loaded.warnings.count == 1 && !loaded.warnings[0].contains(pasted), "\(loaded.warnings)")
        #expect(SectionSecrets(loaded.config.pluginSections["attachments"] ?? [:]).literals == [pasted])
        home.write("config.yaml", "attachments:\n  transcribe:\n    keyEnv: OPENAI_API_KEY\n", mode: 0o644)
        #expect(try home.load().warnings == [])
    }

    @Test func configWritableByGroupOrOthersIsRefused() throws {
        let home = ConfigTestHome()
        for mode: UInt32 in [0o664, 0o646, 0o620] {
            home.write("config.yaml", "pi:\n  command: pi\n", mode: mode)
            let error = try #require(home.loadError())
            #expect(error.kind == .unsafeFile)
            #expect(
                error.description
                    == "refusing to read \(home.configPath): it is writable by group or others (mode 0\(String(mode, radix: 8))), who could make pi-relayd run their programs; run: chmod go-w \(home.configPath)"
            )
        }
    }

    @Test func configWithALiteralSecretMustBePrivate() throws {
        let home = ConfigTestHome()
        home.write("config.yaml", "logs:\n  level: info\ndiscord:\n  token: abc.def\n", mode: 0o644)
        let error = try #require(home.loadError())
        #expect(error.kind == .unsafeFile)
        #expect(
            error.description
                == "refusing to read \(home.configPath): it holds a secret (discord.token at line 4) and it is readable by group or others (mode 0644); run: chmod 600 \(home.configPath) (or move the secret to .env and name its variable in discord.tokenEnv)"
        )
    }

    @Test func privateConfigWithASecretLoadsWithAWarningPerSecret() throws {
        let home = ConfigTestHome()
        home.write(
            "config.yaml",
            """
            discord:
              token: abc.def
            pi:
              env:
                ANTHROPIC_API_KEY: sk-ant-1
                PI_THEME: dark
            telegram:
              bot_token: 12345
              webhookSecretEnv: TG_SECRET
              password: ""
              apiKey: ~
              token: true
            """, mode: 0o600)
        let loaded = try home.load()
        let f = home.configPath
        #expect(
            loaded.warnings == [
                "\(f):2:3: discord.token is a secret written in config.yaml; put it in .env and name the variable in discord.tokenEnv instead",
                "\(f):5:5: pi.env.ANTHROPIC_API_KEY is a secret written in config.yaml; move ANTHROPIC_API_KEY to .env, whose variables reach pi too",
                "\(f):8:3: telegram.bot_token is a secret written in config.yaml; put it in .env and name the variable in telegram.bot_tokenEnv instead",
                // The daemon checks the telegram section (as it does discord's), so a key it does not know is said.
                "\(f):9:3: unknown key 'webhookSecretEnv' in telegram (ignored)",
            ])
        #expect(loaded.config.pi.env["ANTHROPIC_API_KEY"] == "sk-ant-1")
    }

    @Test func secretUnderPiEnvSuggestsDotenv() throws {
        let home = ConfigTestHome()
        home.write("config.yaml", "pi:\n  env:\n    OPENAI_API_KEY: sk-1\n", mode: 0o640)
        let error = try #require(home.loadError())
        #expect(
            error.description
                == "refusing to read \(home.configPath): it holds a secret (pi.env.OPENAI_API_KEY at line 3) and it is readable by group or others (mode 0640); run: chmod 600 \(home.configPath) (or move OPENAI_API_KEY to .env)"
        )
    }

    /// A password inside an address is a secret whatever its key is called; an address without
    /// one is not.
    @Test func anAddressWithAPasswordIsASecret() throws {
        let home = ConfigTestHome()
        home.write("config.yaml", "pi:\n  env:\n    DATABASE_URL: postgres://relay:pw@db.local/relay\n", mode: 0o644)
        let error = try #require(home.loadError())
        #expect(error.description.contains("it holds a secret (pi.env.DATABASE_URL at line 3)"), "\(error)")
        home.write("config.yaml", "pi:\n  args: [\"--db\", \"postgres://relay:pw@db.local/relay\"]\n", mode: 0o644)
        #expect(try #require(home.loadError()).description.contains("it holds a secret (pi.args[1] at line 2)"))
        home.write(
            "config.yaml", "pi:\n  env:\n    DATABASE_URL: postgres://relay@db.local/relay\n    DOCS: https://example.net/a:b@c\n", mode: 0o644)
        #expect(home.loadError().map { "\($0)" } == nil)
    }

    /// pi's arguments: the value after a flag named like a secret, or joined to it, is a secret;
    /// other flags' values are not.
    @Test func aSecretInPisArgumentsIsASecret() throws {
        let home = ConfigTestHome()
        home.write("config.yaml", "pi:\n  args: [\"--model\", \"sonnet\", \"--api-key\", \"sk-ant-api03-AAAA\"]\n", mode: 0o644)
        let refused = try #require(home.loadError()).description
        #expect(refused.contains("it holds a secret (pi.args[3] at line 2)") && refused.contains("through .env"), "\(refused)")
        #expect(!refused.contains("]Env"), "no key named after a list item: \(refused)")
        home.write("config.yaml", "pi:\n  args: [\"--token=abc123def\"]\n", mode: 0o644)
        #expect(try #require(home.loadError()).description.contains("it holds a secret (pi.args[0] at line 2)"))
        home.write("config.yaml", "pi:\n  args: [\"--model\", \"sonnet\", \"--no-tools\", \"--thinking=high\"]\n", mode: 0o644)
        #expect(home.loadError().map { "\($0)" } == nil)
    }

    @Test func secretKeyNames() {
        for name in ["token", "botToken", "BOT_TOKEN", "apiKey", "api-key", "key", "clientSecret", "password", "PASSWD"] {
            #expect(YAMLNode.isSecretKey(name), "\(name)")
        }
        for name in ["tokenEnv", "apiKeyEnv", "keep", "maxTokens", "secretFile", "name", "allowedUsers"] {
            #expect(!YAMLNode.isSecretKey(name), "\(name)")
        }
    }

    /// Files of another user cannot be made without root, so `readFile` is faked.
    private func fakeFileSystem(ownerOf path: String, is owner: UInt32, text: String) -> ConfigFileSystem {
        ConfigFileSystem(
            readFile: { requested throws(ConfigError) in
                guard requested == path else { return nil }
                return ConfigFile(path: path, bytes: Array(text.utf8), permissions: 0o600, owner: owner)
            }, userID: 1000)
    }

    @Test func configOwnedByAnotherUserIsRefused() throws {
        let path = "/home/me/.pi-relayd/config.yaml"
        let fs = fakeFileSystem(ownerOf: path, is: 0, text: "pi:\n  command: /tmp/evil\n")
        do {
            _ = try ConfigLoader.load(home: "/home/me/.pi-relayd", knownPlugins: [], environment: [:], fileSystem: fs)
            Issue.record("loaded a config owned by root")
        } catch {
            #expect(error.kind == .unsafeFile)
            #expect(
                error.description
                    == "refusing to read \(path): it belongs to another user (uid 0, pi-relayd runs as uid 1000); run: sudo chown 1000 \(path)")
        }
    }

    @Test func dotenvOwnedByAnotherUserIsRefused() throws {
        let path = "/home/me/.pi-relayd/.env"
        let fs = fakeFileSystem(ownerOf: path, is: 1001, text: "A=1\n")
        do {
            _ = try ConfigLoader.load(home: "/home/me/.pi-relayd", knownPlugins: [], environment: [:], fileSystem: fs)
            Issue.record("loaded a .env owned by uid 1001")
        } catch {
            #expect(
                error.description
                    == "refusing to read \(path): it belongs to another user (uid 1001, pi-relayd runs as uid 1000); run: sudo chown 1000 \(path)")
        }
    }

    @Test func ownFilesPassTheOwnerCheck() throws {
        let fs = fakeFileSystem(ownerOf: "/h/config.yaml", is: 1000, text: "logs: {level: error}\n")
        let loaded = try ConfigLoader.load(home: "/h", knownPlugins: [], environment: [:], fileSystem: fs)
        #expect(loaded.config.logs.level == .error)
    }

    @Test func liveReaderReportsOwnerModeAndOddFiles() throws {
        let home = ConfigTestHome()
        let file = home.write("config.yaml", "a: 1\n", mode: 0o640)
        let read = try #require(try ConfigFileSystem.readFromDisk(file))
        #expect(read.permissions == 0o640)
        #expect(read.modeText == "0640")
        #expect(read.owner == ConfigFileSystem.live.userID)
        #expect(read.bytes == Array("a: 1\n".utf8))
        #expect(try ConfigFileSystem.readFromDisk(home.path + "/missing") == nil)

        do {
            _ = try ConfigFileSystem.readFromDisk(home.path)
            Issue.record("read a directory")
        } catch {
            #expect(error.description == "cannot read \(home.path): it is not a regular file")
        }
    }

    @Test func hugeFilesAreNotRead() throws {
        let home = ConfigTestHome()
        let file = home.write("config.yaml", String(repeating: "# padding\n", count: 110_000))
        do {
            _ = try ConfigFileSystem.readFromDisk(file)
            Issue.record("read a 1.1 MB file")
        } catch {
            #expect(error.kind == .unreadable)
            #expect(error.description == "cannot read \(file): it is larger than 1024 KiB, which no config file needs")
        }
    }
}
