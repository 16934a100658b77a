import PiRelaySDK

extension PairingDesk {
    /// A user taken out of config.yaml's allowlist (or the environment's) while pi-relayd was
    /// stopped loses what `users revoke` takes: their direct messages stop watching sessions and
    /// their schedules go, so no more output or approval question reaches them and nothing
    /// prompts in their name. Run once the plugins have said hello (their sections, and so their
    /// allowlists, are final then). A messenger whose bot the federation shares is left alone:
    /// the other machines' allowlists, which let users in too, are not known yet.
    /// Returns what went, for the tests and the log.
    @discardableResult
    package func dropUngranted() async -> (unbound: [Binding], unscheduled: [Schedule]) {
        let decided = sections.greeted.subtracting(sections.sharedMessengers)
        var makers: [String: Set<String>] = [:]
        for binding in await bindings.bindings.values {
            if let user = binding.user, decided.contains(binding.messenger) { makers[binding.messenger, default: []].insert(user) }
        }
        for schedule in await schedules.all {
            guard let user = schedule.createdByUser, let messenger = schedule.createdBy.split(separator: ":").first.map(String.init),
                decided.contains(messenger)
            else { continue }
            makers[messenger, default: []].insert(user)
        }
        var unbound: [Binding] = []
        var unscheduled: [Schedule] = []
        for (messenger, users) in makers.sorted(by: { $0.key < $1.key }) {
            for user in users.sorted() where !allows(user: user, messenger: messenger) {
                let chats = await bindings.unbindDirectMessages(of: user, on: messenger)
                let gone = await schedules.removeAll(
                    madeBy: user, on: messenger, inChats: Set(chats.map(\.key)), reason: "is no longer allowed (not in its allowlist)")
                logger.notice(
                    """
                    pairing: \(user) is no longer allowed on \(messenger) (not in its allowlist, not paired): \(chats.count) of their \
                    chat(s) stopped watching sessions, \(gone.count) schedule(s) of theirs removed
                    """)
                unbound += chats
                unscheduled += gone
            }
        }
        return (unbound, unscheduled)
    }
}
