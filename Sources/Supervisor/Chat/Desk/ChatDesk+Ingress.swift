import PiRelaySDK

/// One bot token on several machines (docs/FEDERATION.md): the federation's lease decides which
/// machine's messenger takes the bot's updates. The messengers listed in `federation.ingress`
/// start standing by and are told when this machine holds the lease; their confirmed positions
/// go to the database under the lease's epoch.
extension ChatDesk {
    /// The messengers whose ingress the federation decides (`federation.ingress` in config.yaml).
    var sharedMessengers: Set<String> {
        Set((sections.section("federation")?["ingress"]?.arrayValue ?? []).compactMap(\.stringValue))
    }

    /// What the welcome tells `plugin` of its ingress: nil when no federation shares its token;
    /// else the federation's last word, or standing by until it has one.
    func sharedIngress(of plugin: String) -> IngressChange? {
        guard sharedMessengers.contains(plugin) else { return nil }
        return status.machines.ingress(of: plugin)
            ?? IngressChange(messenger: plugin, active: false, reason: "waiting for the federation's lease")
    }

    /// The federation's lease on a messenger changed hands: the messenger hears it.
    func ingressChanged(_ change: IngressChange) async {
        let before = status.machines.ingress(of: change.messenger)
        status.machines.update(change)
        // Said again every few seconds to keep the messenger's gate open: logged when it changed.
        if before?.active != change.active || before?.epoch != change.epoch {
            logger.notice(
                change.active
                    ? "\(change.messenger) takes the bot's updates on this machine (lease epoch \(change.epoch.map(String.init) ?? "?"))"
                    : "\(change.messenger) stands by: \(change.reason ?? "another machine holds the lease")")
        }
        await host.slot(change.messenger)?.notify(.messengerIngress, change)
    }

    /// A shared messenger's confirmed position, stored under this machine's epoch; not stored
    /// (the messenger stands by) when another machine holds the lease.
    func storeCursor(_ cursor: IngressCursor) async throws -> CursorAnswer {
        guard sharedMessengers.contains(cursor.messenger) else { return CursorAnswer(stored: true) }
        guard let federation = await host.plugin(forRole: "federation") else {
            throw RemoteError(code: .unavailable, message: "the federation plugin is not running")
        }
        return try await federation.request(.federationCursor, cursor, timeout: .seconds(5))
    }

    /// Whether this machine is the first of the federation to act on a shared messenger's
    /// message (`federation.claim`). True for a messenger no federation shares, and when the
    /// database cannot say: then only the preferred machine takes the bot's updates.
    func claimedFirst(_ messageID: String, messenger: String) async -> Bool {
        guard sharedMessengers.contains(messenger), let federation = await host.plugin(forRole: "federation") else { return true }
        do {
            return try await federation.request(.federationClaim, MessageClaim(messenger: messenger, messageID: messageID), timeout: .seconds(5))
                .first ?? true
        } catch {
            logger.warning("could not claim message \(messageID) of \(messenger) in the federation (\(error)); acting on it")
            return true
        }
    }

    /// Gives a claim back: acting on the message failed, so the messenger's retry must count.
    func releaseClaim(_ messageID: String, messenger: String) async {
        guard sharedMessengers.contains(messenger), let federation = await host.plugin(forRole: "federation") else { return }
        do {
            _ = try await federation.request(
                .federationClaim, MessageClaim(messenger: messenger, messageID: messageID, release: true), timeout: .seconds(5))
        } catch {
            logger.warning("could not give back the claim on message \(messageID) of \(messenger): \(error)")
        }
    }
}
