import Foundation
import PiRelaySDK
import Testing

/// Shared rooms through one whole daemon, in process: what a machine does in a thread of the
/// room, and with a slash command that picks another machine. (Three daemons in one Telegram
/// group are `StackSharedRoomTests`.)
@Suite(.timeLimit(.minutes(3))) struct LinkedSharedRoomTests {
    static let room = "room-1"

    func slash(_ relay: LinkedRelay, _ name: String, _ args: [String: String]) async throws -> Reply {
        let connection = try #require(await LinkedChats.shared.connection(relay.messengerState))
        let chat = Chat(messenger: LinkedRelay.messenger, channel: Self.room, user: LinkedRelay.user, dm: false)
        return try await connection.request(.chatCommand, ChatCommandParams(chat: chat, name: name, args: args))
    }

    @Test func aThreadIsItsMachinesAndASlashPickOfAnotherIsNotKept() async throws {
        try await LinkedRelay.with(config: ["machine: laptop"], messengerKeys: ["sharedRooms: all"]) { relay in
            _ = try await relay.say("/new \(relay.workspace) api")

            // A slash command to this bot naming another machine: answered, and not kept, so the
            // room is still unpicked (each bot says how to pick) rather than silent.
            let other = try await slash(relay, "use", ["session": "desktop web"])
            #expect(other.text.contains("another machine answers that"), "\(other)")
            let unpicked = try await relay.say("hello room", channel: Self.room)
            #expect(unpicked.reply?.text.contains("/use laptop SESSION") == true, "\(unpicked)")

            // A thread nobody picked: quiet, not a hint in someone else's thread.
            let quiet = try await relay.say("hello thread", channel: Self.room, thread: "t-9")
            #expect(quiet.status == .ignored && quiet.reply == nil, "\(quiet)")
            // Picked for this machine there: bound, and its prompts go to the session.
            let used = try await relay.say("/use laptop api", channel: Self.room, thread: "t-9")
            #expect(used.reply?.text.contains("Watching api") == true, "\(used)")
            let prompted = try await relay.say("in the thread", channel: Self.room, thread: "t-9")
            #expect(prompted.status == .prompted, "\(prompted)")
            _ = try await relay.waitToHear("Echo: in the thread")
            // Another machine picked in the thread: this one falls quiet there.
            _ = try await relay.say("/use desktop web", channel: Self.room, thread: "t-9")
            let after = try await relay.say("still here?", channel: Self.room, thread: "t-9")
            #expect(after.status == .ignored, "\(after)")
        }
    }
}
