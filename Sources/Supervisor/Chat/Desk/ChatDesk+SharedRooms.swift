import FoundationEssentials
import PiRelaySDK

/// Shared rooms (docs/MACHINES.md): a group chat listed in the messenger's `sharedRooms`, where
/// several machines' bots sit. `SharedRoomRule` decides; this carries it out.
extension ChatDesk {
    /// What became of a request in a shared room.
    package enum RoomOutcome {
        /// Not a shared room, or this machine's to act on as in any chat.
        case asUsual
        /// This machine's, as this command.
        case command(ChatCommand)
        /// Shown, nothing else done.
        case reply(Reply)
        /// Another machine's: nothing said.
        case silent
    }

    /// Whether `chat` is a shared room, by its messenger's `sharedRooms`.
    package func isSharedRoom(_ chat: Chat) -> Bool {
        SharedRooms(sections.section(chat.messenger)?["sharedRooms"]).contains(chat.channel, dm: chat.dm)
    }

    /// Applies the room's rule to a request (`command` nil for plain text), keeping the pick.
    /// A thread or topic in the room keeps a pick of its own: the machine it is bound to (a
    /// `/new` there opened it) answers in it, the others stay quiet until it picks them.
    /// `slash`: a slash command reaches one bot only: it may pick this machine, but a pick of
    /// another is not kept here (that machine never hears of it, and the room would fall silent).
    package func inRoom(_ command: ChatCommand?, chat: Chat, slash: Bool = false) async -> RoomOutcome {
        guard isSharedRoom(chat) else { return .asUsual }
        let inThread = chat.thread != nil
        let room = inThread ? chat.key : "\(chat.messenger):\(chat.channel)"
        let picked = await preferences.machine(room)
        if inThread, await bindings.binding(chat.key) != nil, picked == nil || picked == sessions.machine, !Self.picks(command) {
            return .asUsual
        }
        let (pick, verdict) = roomRule.decide(command, room: room, picked: picked, now: Date())
        if let pick, !slash || pick == sessions.machine {
            await preferences.pick(pick, for: room)
            if pick != picked { logger.info("shared room \(room) picked machine \(pick)") }
        }
        if inThread, case .hint = verdict { return .silent }
        switch verdict {
        case .handle: return .asUsual
        case .run(let command): return .command(command)
        case .silent: return .silent
        case .hint(let text): return .reply(Reply(text, ephemeral: true))
        case .whichMachine(let name, let example):
            guard (try? await resolve(name, chat: chat)) != nil else { return .silent }
            return .reply(Reply("Which machine? \(sessions.machine) has a session \(name): \(example)", ephemeral: true))
        }
    }

    /// `/use`, `/new` and `/to` name their machine in a shared room.
    private static func picks(_ command: ChatCommand?) -> Bool {
        switch command {
        case .use?, .new?, .to?: return true
        default: return false
        }
    }
}
