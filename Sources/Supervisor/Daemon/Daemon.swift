import FoundationEssentials
import Logging
import PiRelaySDK
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

/// The running daemon: config, lock, logs, plugins, control socket; shuts down in order on
/// SIGTERM/SIGINT or `pi-relayd stop`, reloads plugins on SIGHUP.
package struct Daemon: Service {
    package let home: Home
    package let foreground: Bool
    /// Plugins linked into this process, beside those in the plugin folders (tests of the chat
    /// layer). With any, the bundled folders are not searched: only the home's plugins folder.
    package let linked: [InProcessPlugin]

    package init(home: Home, foreground: Bool, linked: [InProcessPlugin] = []) {
        self.home = home
        self.foreground = foreground
        self.linked = linked
    }

    package struct StartError: Error, CustomStringConvertible { package let description: String }

    package func run() async throws {
        try home.prepare()
        let environment = ProcessInfo.processInfo.environment
        let pluginDirs = Self.pluginDirectories(home: home, linked: !linked.isEmpty, environment: environment)
        let loaded = try Self.loadConfig(home: home, linked: linked.map(\.name), environment: environment)
        // Children inherit these; variables already set in the environment win.
        for (name, value) in loaded.dotenv { setenv(name, value, 0) }
        Redactor.learn(environment: ProcessInfo.processInfo.environment)
        // Secrets written in config.yaml reach children too (pi.env, plugin sections), and a child
        // may print them.
        Redactor.learn(environment: loaded.config.pi.env)
        Redactor.learn(arguments: loaded.config.pi.args)
        for section in loaded.config.pluginSections.values { Redactor.learn(config: section, environment: ProcessInfo.processInfo.environment) }

        let lockFD = try acquireLock()
        defer { close(lockFD) }
        _ = AtomicFile.write(Array("\(getpid())\n".utf8), to: home.pidFile)
        defer { unlink(home.pidFile) }

        let config = loaded.config
        let daemonLog = RotatingLog(path: home.logFile("pi-relayd"), maxBytes: config.logs.maxBytes, keep: config.logs.keep)
        let level = config.logs.level
        let logger = Logger(label: "pi-relayd") { _ in DaemonLogHandler(file: daemonLog, level: level, echo: foreground) }
        logger.info("pi-relayd \(Version.current) starting, pid \(getpid()), home \(home.root)")
        for warning in loaded.warnings { logger.warning("\(warning)") }
        for name in loaded.notConfigured { logger.notice("not configured: \(name)") }

        let options = PluginHostOptions(config: config)
        let sections = PluginSections(config: config, environment: ProcessInfo.processInfo.environment)
        let (stopSignal, stopper) = AsyncStream<Void>.makeStream()
        let approvalLog = ApprovalLog(path: home.stateDir + "/approvals.jsonl", logger: logger)
        var launcher = PiLauncher(settings: config.pi, approvals: config.approvals, files: ExtensionFiles(), home: home.root)
        launcher.commandTimeout = .seconds(config.sessions.limits.commandSeconds)
        launcher.withheld = { sections.withheldFromPi }
        if let problem = launcher.extensionProblem { logger.warning("\(problem)") }
        // Read before anything runs: a file from a newer pi-relayd stops the start here, before
        // a save could overwrite it.
        let sessionFile = StateFile<SessionRecord>.sessions(path: home.stateDir + "/sessions.json")
        let bindingFile = StateFile<Binding>.bindings(path: home.bindingsFile)
        let savedSessions = try sessionFile.load(logger: logger)
        let savedBindings = try bindingFile.load(logger: logger)
        let preferenceFile = StateFile<ChatPreference>.chatPreferences(path: home.stateDir + "/chat-preferences.json")
        let savedPreferences = try preferenceFile.load(logger: logger)
        let endedFile = StateFile<EndedSession>.endedSessions(path: home.stateDir + "/ended-sessions.json")
        let savedEnded = try endedFile.load(logger: logger)
        let scheduleFile = StateFile<Schedule>.schedules(path: home.schedulesFile)
        let savedSchedules = try scheduleFile.load(logger: logger)
        let queuedFile = StateFile<QueuedPromptRecord>.queuedPrompts(path: home.stateDir + "/queued-prompts.json")
        let savedQueued = try queuedFile.load(logger: logger)

        // Each part is made whole by its init, in dependency order. The one cycle (plugins call
        // the chat desk, which calls plugins) is cut by handing the host its router in `run`.
        let host = PluginHost(home: home, options: options, directories: pluginDirs, logger: logger, linked: linked)
        launcher.secretsKnown = { await host.firstTries() }
        let bindings = ChatBindings(store: bindingFile, saved: savedBindings.records, logger: logger)
        let metrics = RelayMetrics()
        let failures = StateFailures()
        let preferences = ChatPreferences(
            store: preferenceFile, saved: savedPreferences.records, defaults: config.chat, notify: config.notify, logger: logger,
            failures: failures)
        let delivery = ChatDelivery(
            home: home, logger: logger, host: host, bindings: bindings, metrics: metrics, preferences: preferences, notify: config.notify)
        let sessions = Sessions(
            store: sessionFile, launcher: launcher,
            historyEntries: config.sessions.historyEvents, historyBytes: config.sessions.historyBytes,
            logger: logger, observer: delivery, machine: config.machineName,
            ended: EndedSessions(
                store: endedFile, saved: savedEnded.records, keepDays: config.sessions.keepDays, logger: logger, failures: failures))
        await delivery.attach(sessions)
        await delivery.keepQueued(in: queuedFile, failures: failures)
        let prompter = PromptSender(
            busyBehavior: config.sessions.busyPolicy.rawValue, observer: delivery, metrics: metrics, queueMax: config.sessions.limits.queueMax,
            freshPerMessage: config.sessions.limits.onMessage == .newConversation)
        let schedules = Schedules(
            store: scheduleFile, saved: savedSchedules.records, settings: config.schedules, sessions: sessions, prompter: prompter, logger: logger)
        let status = DaemonStatus(
            home: home, notes: loaded.warnings + loaded.notConfigured, sections: sections,
            stateProblems: savedSessions.problems + savedBindings.problems + savedPreferences.problems + savedEnded.problems
                + savedSchedules.problems + savedQueued.problems,
            stateFailures: failures,
            daemonLog: daemonLog, host: host, sessions: sessions, bindings: bindings, schedules: schedules, approvalLog: approvalLog,
            metrics: metrics, metricsAddress: config.metrics.listen)
        let pairing = PairingDesk(
            home: home, logger: logger, sections: sections, environment: ProcessInfo.processInfo.environment, host: host,
            delivery: delivery, sessions: sessions, bindings: bindings, schedules: schedules)
        let desk = ChatDesk(
            home: home, logger: logger, sections: sections, defaultCwd: config.sessions.defaultCwd, host: host,
            sessions: sessions, bindings: bindings, delivery: delivery, prompter: prompter, status: status,
            approvalLog: approvalLog, pairing: pairing, preferences: preferences, chatSettings: config.chat, schedules: schedules)
        let router = ControlRouter(
            host: host,
            sessionControl: SessionControl(
                sessions: sessions, bindings: bindings, delivery: delivery, prompter: prompter, approvalSettings: config.approvals,
                approvalLog: approvalLog, spawnLimit: config.sessions.spawnLimit),
            terminalAttach: TerminalAttach(sessions: sessions, bindings: bindings, approvals: config.approvals, logger: logger),
            status: status, pairing: pairing, scheduleControl: ScheduleControl(schedules: schedules, sessions: sessions)
        ) { stopper.yield() }
        await sessions.adopt(savedSessions.records)
        let control = ControlServer(path: home.socketPath, logger: logger, handler: router, redact: Redactor.redact)
        try control.start()
        logger.info("control socket \(home.socketPath)")
        // Opt-in: nothing listens unless metrics.listen is set, and then on loopback only.
        let metricsServer = config.metrics.listen.map { address in
            MetricsServer(address: address, logger: logger) { await metrics.exposition(sessions: sessions, host: host) }
        }
        if let metricsServer {
            do { try metricsServer.start() } catch {
                control.stop()
                throw StartError(description: error.description)
            }
            logger.info("metrics on http://\(metricsServer.address)/metrics")
        }

        // Trapped before anything else runs, so a SIGHUP sent now reloads instead of killing.
        let hangups = await UnixSignalsSequence(trapping: .sighup)

        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in stopSignal {
                        logger.info("stop requested")
                        // pi's queues die with it (its children stop now): the chats waiting under
                        // a ⏳ hear so, through the outbox, now or at the next start.
                        for session in await sessions.all where session.terminal == nil {
                            await delivery.dropQueued(in: session.id, because: "pi-relayd was stopped before pi reached your queued message")
                        }
                        await sessions.shutdown()
                        await host.shutdown()
                        break
                    }
                }
                group.addTask { await sessions.restore() }
                group.addTask { await delivery.dropQueued(fromBefore: savedQueued.records) }
                group.addTask { await sessions.ended?.run() }
                group.addTask {
                    // Before any schedule runs: a user taken out of an allowlist while the daemon
                    // was stopped loses their chats and schedules, as a revocation takes them.
                    await host.firstTries()
                    await pairing.dropUngranted()
                    await schedules.run()
                }
                group.addTask { await HealthLog(interval: config.metrics.healthLogSeconds, status: status, logger: logger).run() }
                group.addTask {
                    await LimitWatch(limits: config.sessions.limits, sessions: sessions, bindings: bindings, observer: delivery, logger: logger).run()
                }
                group.addTask {
                    // An attached terminal pi shows in its footer which messengers watch it.
                    for await id in bindings.changes {
                        guard let session = await sessions.session(id: id) else { continue }
                        await session.tellWatchers(Array(Set(await bindings.chats(of: id).map(\.messenger))).sorted())
                    }
                }
                group.addTask {
                    for await _ in hangups {
                        logger.info("SIGHUP: reloading plugins")
                        await host.reload()
                    }
                }
                // Returns once every plugin has exited: shutdown escalates to SIGKILL, so this is bounded.
                await host.run(router: desk)
                stopper.finish()
                // The SIGHUP loop waits for signals forever; cancelling it ends its iteration.
                group.cancelAll()
            }
        } onGracefulShutdown: {
            logger.info("signal received: shutting down")
            stopper.yield()
        }
        control.stop()
        metricsServer?.stop()
        logger.info("pi-relayd stopped")
    }

    private func acquireLock() throws -> Int32 {
        do {
            if let fd = try HomeLock.take(home) { return fd }
        } catch {
            throw StartError(description: error.description)
        }
        let pid = home.writtenPID
        // No daemon behind the lock: a command editing the state files offline holds it a moment.
        guard let pid, OrphanChild.alive(pid) else {
            throw StartError(description: "\(home.lockFile) is held by another pi-relayd command changing its files; start again in a moment")
        }
        throw StartError(description: "pi-relayd is already running for \(home.root) (pid \(pid))")
    }
}
