import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Plays pi-relayd against one plugin executable and reports each rule of the protocol it keeps
/// or breaks; for a messenger with a driver, also what a user of the service sees
/// (docs/PROTOCOL.md §10). Used by `pi-relayd plugin check`.
package struct PluginCheck {
    package let path: String
    /// The plugin's section as written, and where (for the schema check's line and column).
    package var config: JSONValue = [:]
    package var source: PluginSectionSource?
    /// Variables set on top of the inherited environment (the home's .env).
    package var environment: [String: String] = [:]
    /// `--driver CMD`.
    package var driver: String?
    /// Where the formatter is found, and the home's .env.
    package var home: Home

    package init(
        path: String, config: JSONValue = [:], source: PluginSectionSource? = nil, environment: [String: String] = [:], driver: String? = nil,
        home: Home
    ) {
        self.path = path
        self.config = config
        self.source = source
        self.environment = environment
        self.driver = driver
        self.home = home
    }

    /// The plugin's id: its file name.
    package var id: String { String(path.split(separator: "/").last ?? "") }

    package func run() async -> [CheckStep] {
        var steps = [await runByHand()]
        let stateDir: String
        do { stateDir = try PrivateTempFolder.make("pi-relayd-check") } catch {
            return steps + [.failed("scratch folder", error.message)]
        }
        defer { try? FileManager.default.removeItem(atPath: stateDir) }
        guard let driver else {
            steps += await runAsPlugin(stateDir: stateDir, driver: nil)
            return steps
        }
        let played = CheckDriver(command: driver, workingDirectory: FileManager.default.currentDirectoryPath)
        async let driverExit = played.run()
        steps += await runAsPlugin(stateDir: stateDir, driver: played)
        await played.close()
        _ = await driverExit
        return steps
    }

    /// Started by hand (no PI_RELAY_PLUGIN), a plugin says what it is and exits 64.
    private func runByHand() async -> CheckStep {
        let name = "run by hand: explains itself and exits 64"
        let plugin = CheckedPlugin(link: PluginLink(path: path, workingDirectory: UserFolders.temporary, asPlugin: false))
        plugin.link.close()
        async let exit = plugin.run()
        let ended = await plugin.waitExit(within: .seconds(5))
        if ended == nil { await plugin.kill() }
        _ = await exit
        let said = await plugin.stderrLines.first ?? ""
        return .judged(name, ended == .exited(64), "\(ended.map { "\($0)" } ?? "still running after 5 s")", passed: String(said.prefix(100)))
    }

    /// Everything after the by-hand run: a first instance, the protocol and service steps, a
    /// SIGKILL, and a second instance on the same state directory that must replay exactly once.
    private func runAsPlugin(stateDir: String, driver: CheckDriver?) async -> [CheckStep] {
        var steps: [CheckStep] = []
        var setting = CheckSetting(config: config, source: source, environment: environment)
        var service: CheckDriver? = nil
        if let driver {
            switch await driver.ask(["op": "start", "plugin": .string(id), "stateDir": .string(stateDir)]) {
            case .done(let started):
                do {
                    try setting.apply(started)
                    service = driver
                    steps.append(
                        .passed(
                            "driver started",
                            setting.chat.map { "chat \($0.target.postChannel), user \($0.user.isEmpty ? "signing in with a pairing code" : $0.user)" }
                                ?? ""))
                } catch { steps.append(.failed("driver started", "\(error)")) }
            case .unsupported(let why), .failed(let why): steps.append(.failed("driver started", why))
            }
        }

        let one = CheckedPlugin(link: PluginLink(path: path, workingDirectory: stateDir, extra: setting.environment), pairing: setting.chat?.pairing)
        async let oneExit = one.run()
        let (hello, handshake) = await self.handshake(one, setting: setting, stateDir: stateDir)
        steps += handshake
        guard let hello else {
            await one.kill()
            _ = await oneExit
            return steps
        }
        let messenger = hello.roles.contains("messenger")
        steps += await protocolSteps(one, messenger: messenger, setting: setting)
        if let exit = await one.exit {
            // Said once, with its reason, rather than as a timeout in every step after it.
            let reason = exit == .exited(78) ? "not configured (status 78)" : "\(exit)"
            steps.append(.failed("runs after the welcome", "it stopped: \(reason): \(await one.stderrTail)"))
        }

        var run: MessengerSteps?
        if messenger {
            if let service, let chat = setting.chat {
                let started = MessengerSteps(driver: service, chat: chat, hello: hello, home: home)
                steps += await started.steps(one)
                run = started
            } else {
                let why = driver == nil ? "no --driver given" : "the driver did not start"
                steps += MessengerSteps.names.map { CheckStep.skipped($0, why) }
            }
        }

        // A crash between the effect and the ack: each delivery acted on by the first instance
        // comes again, with the same id, to the second (docs/PROTOCOL.md §4, "Acknowledged delivery").
        let replayed = replayDelivery(messenger: messenger, setting: setting, paired: await one.pairedUser)
        let ackedBeforeKill = await one.deliver(replayed)
        let exactly = await run?.exactlyOnceBeforeKill(one)
        await one.kill()
        _ = await oneExit

        // The restarted plugin is welcomed with the user its first instance paired, as pi-relayd
        // welcomes a plugin with everyone paired so far.
        let paired = await one.pairedUser
        if let paired, setting.chat?.user.isEmpty == true { setting.chat?.user = paired }
        let two = CheckedPlugin(
            link: PluginLink(path: path, workingDirectory: stateDir, extra: setting.environment), handedOver: await one.handedOver,
            pairing: setting.chat?.pairing, pairedUser: paired)
        async let twoExit = two.run()
        let (again, restart) = await self.handshake(two, setting: setting, stateDir: stateDir)
        if again == nil { steps += restart.filter { !$0.passed }.map { CheckStep.failed("restart after SIGKILL", "\($0.name): \($0.detail)") } }
        steps.append(await replaySteps(two, replayed, ackedBeforeKill: ackedBeforeKill))
        if let run, let exactly { steps.append(await run.exactlyOnceAfterKill(two, exactly)) }

        two.send(.shutdown(graceMs: 3000))
        two.link.close()
        let exit = await two.waitExit(within: .seconds(5))
        steps.append(.judged("exits 0 after shutdown", exit == .exited(0), exit.map { "\($0)" } ?? "still running after 5 s"))
        if exit == nil { await two.kill() }
        _ = await twoExit

        let junk = await one.junk + two.junk
        steps.append(.judged("stdout carries protocol only", junk.isEmpty, "non-protocol line: \(junk.first ?? "")"))
        return steps
    }

    /// The hello, judged, and the welcome sent.
    private func handshake(_ plugin: CheckedPlugin, setting: CheckSetting, stateDir: String) async -> (Hello?, [CheckStep]) {
        guard let first = await plugin.firstLine(within: .seconds(10)) else {
            let exited = await plugin.exit
            let tail = await plugin.stderrTail
            let why = exited.map { "exited before its hello (\($0)): \(tail)" } ?? "no line on stdout"
            return (nil, [.failed("hello within 10 s", why)])
        }
        let hello: Hello
        switch HelloCheck(first: first) {
        case .accepted(let said), .incompatible(let said, _): hello = said
        case .rejected(let why):
            return (nil, [.failed("hello within 10 s", why.replacing("expected a hello as the first line, got", with: "first line is not a hello"))])
        }
        var steps: [CheckStep] = [
            .passed("hello within 10 s", "\(hello.name) \(hello.version), roles \(hello.roles.joined(separator: ","))"),
            .judged(
                "protocol version \(WireMessage.protocolVersion)", hello.protocol == WireMessage.protocolVersion,
                "says \(hello.protocol)", passed: "says \(hello.protocol)"),
        ]
        // As the daemon does before its welcome; a refused section is sent as written, so the
        // steps after still say what they can.
        var section = setting.config
        if let schema = hello.config {
            do {
                section = try PluginSections.check(
                    source: setting.source, written: setting.config, plugin: id, hello: hello, environment: setting.environment
                ).section
                steps.append(.passed("config section fits its schema", "\(schema.keys.count) keys declared"))
            } catch {
                steps.append(.failed("config section fits its schema", "\(error)"))
            }
        }
        plugin.send(.welcome(setting.welcome(plugin: hello.name, section: section, stateDir: stateDir, messenger: id)))
        return (hello, steps)
    }
}
