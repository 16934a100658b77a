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
    package func inRoom(_ command: ChatCommand?, chat: Chat) async -> RoomOutcome {
        guard isSharedRoom(chat) else { return .asUsual }
        let picked = await preferences.machine(chat.key)
        let (pick, verdict) = roomRule.decide(command, room: chat.key, picked: picked, now: Date())
        if let pick {
            await preferences.pick(pick, for: chat.key)
            if pick != picked { logger.info("shared room \(chat.key) picked machine \(pick)") }
        }
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
}
