import FoundationEssentials
import Logging
import PiRelaySDK

/// All plugins: discovery, one supervised slot each, and routing of traffic by plugin or role.
package actor PluginHost {
    package let home: Home
    package let options: PluginHostOptions
    package let logger: Logger
    package let directories: [String]
    /// Plugins linked into this process (tests of the chat layer), beside those found in `directories`.
    package let linked: [InProcessPlugin]
    private var slots: [String: PluginSlot] = [:]
    private var refused: [PluginDiscovery.Refused] = []
    /// Set by `run()`: slots exist only while the host runs.
    private var running: Running?
    private var shuttingDown = false
    /// Whether the plugin folders have been scanned once: before that, no plugin is known, and
    /// a delivery made that early (a restored session's news) must wait rather than be dropped.
    package private(set) var scanned = false
    /// Every plugin found at start is past its first try (`firstTries`).
    private var triedAll = false

    /// Where `run()` starts slots, and who answers their plugins.
    private struct Running {
        let starter: AsyncStream<PluginSlot>.Continuation
        let router: any PluginRouter
    }

    package init(home: Home, options: PluginHostOptions, directories: [String], logger: Logger, linked: [InProcessPlugin] = []) {
        self.home = home
        self.options = options
        self.directories = directories
        self.logger = logger
        self.linked = linked
    }

    /// Runs every plugin until `shutdown()`; slots added by `reload()` join the same task group.
    /// The router comes here rather than to `init`: it needs the host (to reach plugins), so the
    /// host is made first and handed its router when it starts the plugins, which is when the
    /// first plugin can call.
    package func run(router: any PluginRouter) async {
        let (starts, starter) = AsyncStream<PluginSlot>.makeStream()
        running = Running(starter: starter, router: router)
        reload()
        await withDiscardingTaskGroup { group in
            for await slot in starts {
                group.addTask { await slot.run() }
            }
        }
    }

    /// Rescans the plugin folders: starts new plugins, stops removed ones, re-arms changed ones.
    /// Before `run`, there is nothing to start it with, so it does nothing.
    @discardableResult
    package func reload() -> (added: [String], removed: [String]) {
        guard let running, !shuttingDown else { return ([], []) }
        var scan = PluginDiscovery(directories: directories, disabled: options.disabled).scan()
        // A linked plugin has no file to change: it is found as it is, and wins over a file of its name.
        let linkedNames = Set(linked.map(\.name))
        scan.found =
            scan.found.filter { !linkedNames.contains($0.name) }
            + linked.map { PluginDiscovery.Found(name: $0.name, path: $0.path, fingerprint: $0.path) }
        for refusal in scan.refused where !refused.contains(refusal) {
            logger.error("refusing plugin \(refusal.name) at \(refusal.path): \(refusal.reason)")
        }
        refused = scan.refused
        scanned = true
        for name in scan.skipped where slots[name] == nil {
            logger.info("plugin \(name) is disabled in config (plugins.disabled)")
        }
        var added: [String] = []
        var removed: [String] = []
        let names = Set(scan.found.map(\.name))
        for (name, slot) in slots where !names.contains(name) {
            logger.info("plugin \(name) was removed; stopping it")
            Task { await slot.stop() }
            slots.removeValue(forKey: name)
            removed.append(name)
        }
        for found in scan.found {
            if let slot = slots[found.name] {
                Task { await slot.executableChanged(found) }
                continue
            }
            let slot = PluginSlot(
                found: found, home: home, options: options, logger: logger, router: running.router,
                linked: linked.first { $0.name == found.name })
            slots[found.name] = slot
            running.starter.yield(slot)
            added.append(found.name)
        }
        if !added.isEmpty { logger.info("plugins found: \(added.joined(separator: ", "))") }
        return (added, removed)
    }

    /// A plugin by name. A chat another machine owns has a messenger named `MACHINE/MESSENGER`
    /// (`RemoteChannel`): what is sent to it goes to the federation plugin, which carries it there.
    package func slot(_ name: String) -> PluginSlot? {
        slots[name] ?? (RemoteChannel.isRemote(messenger: name) ? slots["federation"] : nil)
    }

    /// Waits (up to 10 s, polling: it happens once, at start) until the plugin folders have been
    /// scanned.
    package nonisolated func firstScan() async {
        for _ in 0..<100 where !(await scanned) { try? await Task.sleep(for: .milliseconds(100)) }
    }

    /// Waits until every plugin found at start is past its first try (`PluginSlot.firstTryOver`),
    /// for at most the handshake timeout and a second: until then the variables a plugin's schema
    /// declares secret (`TELEGRAM_BOT_TOKEN` when its section names none) are not known, and a pi
    /// started meanwhile, a restored session's, would be given them. Polled: it matters at start.
    package nonisolated func firstTries() async {
        await firstScan()
        let deadline = ContinuousClock.now + options.handshakeTimeout + .seconds(1)
        while ContinuousClock.now < deadline, !(await firstTriesOver()) { try? await Task.sleep(for: .milliseconds(20)) }
    }

    private func firstTriesOver() async -> Bool {
        if triedAll { return true }
        for slot in slots.values where !(await slot.firstTryOver) { return false }
        triedAll = true
        return true
    }

    package var names: [String] { slots.keys.sorted() }

    /// The running plugins that declared a role, by name.
    package func plugins(withRole role: String) async -> [PluginSlot] {
        var out: [PluginSlot] = []
        for name in slots.keys.sorted() {
            if let slot = slots[name], await slot.roles.contains(role) { out.append(slot) }
        }
        return out
    }

    /// The one plugin for a role: a plugin named after the role wins (so `formatter` is found
    /// before it has said hello), else the first running plugin that declared it.
    package func plugin(forRole role: String) async -> PluginSlot? {
        if let slot = slots[role] { return slot }
        return await plugins(withRole: role).first
    }

    package func restart(_ name: String) async throws {
        guard let slot = slots[name] else {
            throw RemoteError(code: .notFound, message: "no plugin named \(name); see pi-relayd plugins")
        }
        await slot.restart()
    }

    package func status() async -> JSONValue {
        var list: [JSONValue] = []
        for name in slots.keys.sorted() { list.append(await slots[name]!.status()) }
        for refusal in refused {
            list.append(["name": .string(refusal.name), "path": .string(refusal.path), "state": "refused", "reason": .string(refusal.reason)])
        }
        return .array(list)
    }

    /// Stops every plugin in order and ends `run()`.
    package func shutdown() async {
        shuttingDown = true
        for (_, slot) in slots { await slot.stop() }
        running?.starter.finish()
    }
}
